// Reading what the user gives beyond plain strings: JSON options, JSON files, stdin, and a password
// typed on a terminal without echo.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { UsageError } from './errors.js';
import { cliIo } from './io.js';

export function parseJsonOption(name: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(
      `${name} is not valid JSON: ${(err as Error).message}`,
      `Quote the JSON for your shell, e.g. ${name} '{"a":1}'.`,
    );
  }
}

/** `--value`: JSON when it parses (true, 42, "x", {…}), else the text itself; `string` flags keep plain text. */
export function parseFlagValue(text: string, type?: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  if (type === 'string' && typeof parsed !== 'string') return text;
  return parsed;
}

export function parseBoolean(name: string, text: string): boolean {
  if (/^(true|yes|on|1)$/i.test(text)) return true;
  if (/^(false|no|off|0)$/i.test(text)) return false;
  throw new UsageError(`${name} must be true or false, got "${text}"`);
}

export function parseInteger(name: string, text: string, min = 0): number {
  const n = Number(text);
  if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < min)
    throw new UsageError(`${name} must be an integer ≥ ${min}, got "${text}"`);
  return n;
}

export function readTextFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

export function readJsonFile(path: string): { text: string; value: unknown } {
  const text = readTextFile(path);
  try {
    return { text, value: JSON.parse(text) };
  } catch (err) {
    throw new UsageError(`${path} is not valid JSON: ${(err as Error).message}`);
  }
}

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of cliIo().stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads one secret line from the terminal; what is typed is not echoed. */
export async function promptHidden(question: string): Promise<string> {
  const { stdin, stderr } = cliIo();
  if (!stdin.isTTY) {
    throw new UsageError(
      'no terminal to ask for the password on',
      'Pipe the password with --password-stdin, e.g. `printf %s "$PW" | ensign login --email me@example.com --password-stdin`.',
    );
  }
  let muted = false;
  const output = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) stderr.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input: stdin, output, terminal: true });
  try {
    return await new Promise<string>((resolve, reject) => {
      rl.question(question, (answer) => resolve(answer));
      muted = true;
      rl.once('SIGINT', () => reject(new UsageError('cancelled')));
    });
  } finally {
    rl.close();
    stderr.write('\n');
  }
}

/** Reads one visible line from the terminal. */
export async function promptLine(question: string): Promise<string> {
  const { stdin, stderr } = cliIo();
  const rl = createInterface({ input: stdin, output: stderr, terminal: !!stdin.isTTY });
  try {
    return await new Promise<string>((resolve) => rl.question(question, (answer) => resolve(answer.trim())));
  } finally {
    rl.close();
  }
}

/**
 * An entity tag for If-None-Match as the user typed it: the shell strips the quotes of "abc", so a
 * value without them gets them back (W/abc becomes W/"abc"); W/"…", a quoted value and * are sent
 * as they are.
 */
export function quoteEtag(value: string): string {
  const v = value.trim();
  if (v === '*' || v.startsWith('W/"') || (v.length >= 2 && v.startsWith('"') && v.endsWith('"'))) return v;
  if (v.startsWith('W/')) return `W/"${v.slice(2)}"`;
  return `"${v}"`;
}
