// Everything the CLI prints: JSON for --json, tables and label/value lists for people, notes and
// errors on stderr. Commands never write to the console directly. Human output never carries a raw
// control character (terminal-text.ts): tables and pairs escape every one in their cells, and lines
// and notes every one but the line feeds that separate the command's own lines.
import { ApiError, CliError } from './errors.js';
import { cliIo, type CliIo } from './io.js';
import { renderPairs, renderTable, type Cell, type TableOptions } from './table.js';
import { jsonForTerminal, visible } from './terminal-text.js';

const terminated = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);
const write = (stream: CliIo['stdout'], text: string) => stream.write(terminated(visible(text, true)));

/** The value as indented JSON, exact once parsed (jsonForTerminal only re-spells characters inside strings). */
export function printJson(value: unknown): void {
  cliIo().stdout.write(terminated(jsonForTerminal(JSON.stringify(value, null, 2))));
}

/**
 * csv or ndjson as the server sent it. ndjson's lines are JSON, re-spelled as printJson does (the
 * same values); csv is written byte for byte to a file or a pipe, and with its control characters
 * escaped (line feeds kept) when stdout is a terminal, where nobody parses it.
 */
export function printRaw(format: 'csv' | 'ndjson', text: string): void {
  const { stdout } = cliIo();
  if (format === 'ndjson') stdout.write(jsonForTerminal(text));
  else stdout.write(stdout.isTTY ? visible(text, true) : text);
}

export function printLine(text = ''): void {
  write(cliIo().stdout, text);
}

export function printTable(headers: string[], rows: Cell[][], empty = '(none)', options?: TableOptions): void {
  write(cliIo().stdout, rows.length === 0 ? empty : renderTable(headers, rows, options));
}

export function printPairs(pairs: [string, Cell][]): void {
  write(cliIo().stdout, renderPairs(pairs));
}

/** A remark for people (progress, warnings, ETags): stderr, so stdout stays the command's result. */
export function note(text: string): void {
  write(cliIo().stderr, text);
}

/**
 * Compact text for a table cell or a label/value line: strings as they are, anything else as JSON;
 * control characters escaped, line feeds included, so a value never breaks the line it is put in.
 */
export function show(value: unknown): string {
  if (value === undefined || value === null) return '-';
  return visible(typeof value === 'string' ? value : JSON.stringify(value));
}

/** Prints the JSON body when --json is set, else runs the human renderer. */
export function emit(json: boolean, body: unknown, human: () => void): void {
  if (json) printJson(body);
  else human();
}

/** Reports a failure on stderr (message, resolution, details, request id); with --json the server's error body also goes to stdout. */
export function printError(err: unknown, json: boolean): number {
  if (err instanceof ApiError) {
    if (json && err.body !== null && typeof err.body === 'object') printJson(err.body);
    note(`error: ${err.message} [${err.code}, HTTP ${err.status}]`);
    for (const d of err.details) if (!err.message.includes(d.message)) note(`  ${d.path}: ${d.message}`);
    if (err.resolution) note(`resolution: ${err.resolution}`);
    if (err.requestId) note(`request id: ${err.requestId}`);
    return err.exitCode;
  }
  if (err instanceof CliError) {
    note(`error: ${err.message}`);
    if (err.resolution) note(`resolution: ${err.resolution}`);
    return err.exitCode;
  }
  const e = err as { message?: string; resolution?: unknown };
  note(`error: ${e?.message ?? String(err)}`);
  if (typeof e?.resolution === 'string') note(`resolution: ${e.resolution}`);
  return 1;
}
