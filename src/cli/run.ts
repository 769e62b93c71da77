// One `ensign` command, from its arguments to its exit code (1 the server refused, 2 bad usage or
// local input, 3 server unreachable): main.ts runs it for the process; tests run it in theirs, with
// streams and an environment of their own (io.ts).
import { CommanderError } from 'commander';
import { EXIT_USAGE } from './errors.js';
import { cliIo, withCliIo, type CliIo } from './io.js';
import { printError } from './output.js';
import { buildProgram } from './program.js';

/** Runs `args` (the words after `ensign`) and answers the exit code; `io` defaults to the process's. */
export function runCommand(args: string[], io: CliIo = cliIo()): Promise<number> {
  return withCliIo(io, async () => {
    const program = buildProgram();
    try {
      await program.parseAsync(args, { from: 'user' });
      return 0;
    } catch (err) {
      if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : EXIT_USAGE;
      return printError(err, !!program.opts().json);
    }
  });
}
