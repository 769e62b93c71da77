// Starts an entry point as a child process of a test (from the build when it is current, else through
// tsx: entry-points.ts), stopped with SIGTERM when the test ends, and resolves once its stdout says it
// is ready.
import { spawn, type ChildProcess } from 'node:child_process';
import { entryArgs, ROOT } from './entry-points.js';
import type { TestContext } from './test-app.js';

export { ROOT };

export interface StartedChild<T> {
  child: ChildProcess;
  /** What `ready` extracted from the output. */
  value: T;
  /** Everything the process has written so far (stdout, then stderr): for a failing assertion's message. */
  output(): string;
}

/** `ready` looks at all output so far and returns a value once the process is ready (else null). */
export function startChild<T>(
  t: TestContext,
  entry: string,
  env: NodeJS.ProcessEnv,
  ready: (stdout: string) => T | null,
): Promise<StartedChild<T>> {
  const child = spawn(process.execPath, entryArgs(entry), {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(
    () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  );
  return new Promise((done, fail) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    child.stdout!.on('data', (d) => {
      out += d;
      const value = ready(out);
      if (value !== null) done({ child, value, output: () => out + err });
    });
    child.once('exit', (code) => fail(new Error(`${entry} exited with ${code}: ${err}${out}`)));
  });
}
