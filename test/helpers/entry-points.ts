// How a test starts one of the server's entry points (src/main.ts, src/cli/main.ts) as a process of
// its own: from the compiled build (dist/) when it is current, else from the source through tsx.
// `npm test` writes the build before the tests (its typecheck's second half), and a process started
// from it loads in ~0.9 s of CPU instead of ~2.3 s through tsx: the tests start about a hundred such
// processes. A build older than any source (an edited file, a test run on its own) is never used.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

/** The newest modification time of the non-test TypeScript sources under `dir`. */
function newestSource(dir: string): number {
  return Math.max(
    0,
    ...readdirSync(dir, { withFileTypes: true }).map((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return newestSource(path);
      return e.name.endsWith('.ts') && !e.name.includes('.test.') ? statSync(path).mtimeMs : 0;
    }),
  );
}

let current: boolean | undefined;

/** dist/ (the server's build) and the engine package's build exist, and no source is newer. */
export function serverBuildIsCurrent(): boolean {
  if (current !== undefined) return current;
  const built = ['dist/main.js', 'dist/cli/main.js', 'packages/engine/dist/esm/index.js'].map((p) =>
    existsSync(join(ROOT, p)) ? statSync(join(ROOT, p)).mtimeMs : 0,
  );
  const sources = Math.max(
    newestSource(join(ROOT, 'src')),
    newestSource(join(ROOT, 'packages/engine/src')),
    statSync(join(ROOT, 'package.json')).mtimeMs,
  );
  return (current = Math.min(...built) > sources);
}

/**
 * The arguments of `node` that run `entry` (a path under src/, absolute or relative to the root):
 * its compiled file when the build is current, else the source through tsx.
 */
export function entryArgs(entry: string): string[] {
  const source = relative(join(ROOT, 'src'), resolve(ROOT, entry));
  if (serverBuildIsCurrent() && !source.startsWith('..')) return [join(ROOT, 'dist', source.replace(/\.ts$/, '.js'))];
  return ['--import', 'tsx', resolve(ROOT, entry)];
}
