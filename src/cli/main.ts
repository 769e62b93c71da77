#!/usr/bin/env node
// Entry of the `ensign` command: parse, run, and turn failures into a message on stderr and an exit
// code (1 the server refused, 2 bad usage or local input, 3 server unreachable).
import { CommanderError } from 'commander';
import { EXIT_USAGE } from './errors.js';
import { printError } from './output.js';
import { buildProgram } from './program.js';

/**
 * A reader that stops early (`ensign … | head`) closes the pipe; the next write fails with EPIPE,
 * emitted as an 'error' event that would end the process with a stack trace. Nobody reads what
 * follows, so the command ends at once and quietly, with the status it had so far (0 unless it had
 * already failed), as `yes | head` does.
 */
function exitQuietlyOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit();
    throw err;
  });
}

async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode === 0 ? 0 : EXIT_USAGE;
      return;
    }
    process.exitCode = printError(err, !!program.opts().json);
  }
}

exitQuietlyOnClosedPipe(process.stdout);
exitQuietlyOnClosedPipe(process.stderr);
await main(process.argv);
