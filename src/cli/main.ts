#!/usr/bin/env node
// Entry of the `ensign` command: runs it (run.ts) and exits with its code.
import { runCommand } from './run.js';

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

exitQuietlyOnClosedPipe(process.stdout);
exitQuietlyOnClosedPipe(process.stderr);
process.exitCode = await runCommand(process.argv.slice(2));
