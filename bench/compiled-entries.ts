// Bench servers run compiled, as `npm start` runs Ensign: under tsx a loader thread, the transpiler
// and source maps add to the CPU and memory measured (about a third more CPU per request at these
// rates). The workspace packages are imported from their builds (`npm run build:packages` first).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Compiles bench entry points (paths from the project's root) and what they import into
 * dist/<name>/ — under the project, so the compiled files resolve its dependencies, and in no shared
 * place: a worktree's node_modules may be a link to another checkout's, and two runs would overwrite
 * each other. Type errors elsewhere do not stop it. Returns the path of each compiled entry.
 */
export function compileEntries(name: string, entries: string[]): string[] {
  const compiled = join(root, 'dist', name);
  const options = [
    '--outDir',
    compiled,
    '--rootDir',
    root,
    '--module',
    'nodenext',
    '--moduleResolution',
    'nodenext',
    '--target',
    'es2022',
    '--skipLibCheck',
    '--esModuleInterop',
    '--types',
    'node',
  ];
  try {
    execFileSync(join(root, 'node_modules', '.bin', 'tsc'), [...entries.map((e) => join(root, e)), ...options], {
      stdio: 'pipe',
    });
  } catch {
    /* emitted anyway; checked below */
  }
  return entries.map((entry) => {
    const output = join(compiled, entry.replace(/\.ts$/, '.js'));
    if (!existsSync(output)) throw new Error(`could not compile ${entry}`);
    return output;
  });
}
