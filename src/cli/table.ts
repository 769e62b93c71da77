// A small aligned-table renderer for human output: no dependency, no colours, no box drawing.
// Every cell and label is shown with its control characters escaped (terminal-text.ts).
import { visible } from './terminal-text.js';

export type Cell = string | number | boolean | null | undefined;

export interface TableOptions {
  /** Separator between columns (default two spaces). */
  gap?: string;
  /** Longest cell before it is cut with an ellipsis (default 60 characters). */
  maxCellWidth?: number;
}

const cellText = (cell: Cell, max: number): string => {
  const text = cell === null || cell === undefined || cell === '' ? '-' : visible(String(cell));
  return text.length > max ? `${text.slice(0, Math.max(1, max - 1))}…` : text;
};

/** Renders headers and rows as aligned columns, no trailing spaces; columns holding only numbers align right. */
export function renderTable(headers: string[], rows: Cell[][], options: TableOptions = {}): string {
  headers = headers.map((h) => visible(h));
  const gap = options.gap ?? '  ';
  const max = options.maxCellWidth ?? 60;
  const texts = rows.map((row) => headers.map((_, i) => cellText(row[i], max)));
  const widths = headers.map((h, i) => Math.max(h.length, ...texts.map((row) => row[i].length)));
  const numeric = headers.map(
    (_, i) =>
      rows.length > 0 && rows.every((row) => typeof row[i] === 'number' || row[i] === null || row[i] === undefined),
  );
  const line = (cells: string[]) =>
    cells
      .map((text, i) => (numeric[i] ? text.padStart(widths[i]) : text.padEnd(widths[i])))
      .join(gap)
      .trimEnd();
  return [line(headers), ...texts.map(line)].join('\n');
}

/** Renders label/value pairs as two aligned columns ("label:  value"). */
export function renderPairs(pairs: [string, Cell][]): string {
  const shown = pairs.map(([label, value]): [string, string] => [
    visible(label),
    value === null || value === undefined || value === '' ? '-' : visible(String(value)),
  ]);
  const width = Math.max(0, ...shown.map(([label]) => label.length + 1));
  return shown.map(([label, value]) => `${`${label}:`.padEnd(width)}  ${value}`.trimEnd()).join('\n');
}
