#!/usr/bin/env node
// `npm run build:packages`: builds every workspace package under packages/ (each with its own `build`
// script), a package only after the workspace packages it depends on. Packages whose dependencies are
// built compile at once: on two cores, the engine, then the SDK, then both OpenFeature providers,
// instead of one after another.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const packages = readdirSync('packages', { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => {
    const dir = join('packages', d.name);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const dependsOn = Object.keys({
      ...manifest.dependencies,
      ...manifest.peerDependencies,
      ...manifest.devDependencies,
    });
    return { dir, name: manifest.name, dependsOn };
  });
const names = new Set(packages.map((p) => p.name));

function build(pkg) {
  return new Promise((resolve) =>
    spawn('npm', ['run', '--silent', 'build'], { cwd: pkg.dir, stdio: 'inherit' }).on('close', (code) => resolve(code)),
  );
}

const built = new Set();
let pending = packages;
while (pending.length > 0) {
  const ready = pending.filter((p) => p.dependsOn.every((d) => !names.has(d) || built.has(d)));
  if (ready.length === 0)
    throw new Error(`workspace packages depend on each other in a cycle: ${pending.map((p) => p.name)}`);
  const codes = await Promise.all(ready.map(build));
  const failed = ready.filter((_, i) => codes[i] !== 0);
  if (failed.length > 0) {
    console.error(`build failed: ${failed.map((p) => p.name).join(', ')}`);
    process.exit(1);
  }
  for (const p of ready) built.add(p.name);
  pending = pending.filter((p) => !built.has(p.name));
}
