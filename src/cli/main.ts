#!/usr/bin/env node
// Entry of the `ensign` command: parse, run, and turn failures into a message on stderr and an exit
// code (1 the server refused, 2 bad usage or local input, 3 server unreachable).
import { CommanderError } from 'commander';
import { EXIT_USAGE } from './errors.js';
import { printError } from './output.js';
import { buildProgram } from './program.js';

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

await main(process.argv);
