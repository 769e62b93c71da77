// Where a command reads and writes: the process's streams and environment, or those a caller hands
// runCommand (run.ts), as the tests do to run many commands in one process. Each run's own streams
// follow its async calls (AsyncLocalStorage), so runs that overlap never mix their output.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Readable, Writable } from 'node:stream';

export interface CliIo {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  stdin: Readable & { isTTY?: boolean };
  env: Record<string, string | undefined>;
}

const runs = new AsyncLocalStorage<CliIo>();

/** The streams and environment of the command running now (the process's, outside runCommand). */
export function cliIo(): CliIo {
  return runs.getStore() ?? { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };
}

export function withCliIo<T>(io: CliIo, fn: () => T): T {
  return runs.run(io, fn);
}
