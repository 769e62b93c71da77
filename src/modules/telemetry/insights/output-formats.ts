// csv and ndjson renderings of a query's rows (the same rows as the JSON body), and the X-Insights-*
// headers that carry the metadata those formats have no room for.
import { stringify } from 'csv-stringify/sync';
import type { FastifyReply } from 'fastify';
import { jsonHeaderValue } from '../../../platform/header-values.js';
import type { RateLimitState } from './query-rate-limit.js';

export type Format = 'json' | 'csv' | 'ndjson';

/** Flattens nested row objects into csv columns: `dimensions.flagKey` → `flagKey`, `source.env` → `sourceEnv`. */
function flatten(row: Record<string, unknown>, prefixNested: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [inner, v] of Object.entries(value))
        out[prefixNested ? `${key}${inner[0]!.toUpperCase()}${inner.slice(1)}` : inner] = v;
    } else out[key] = value;
  }
  return out;
}

/** What a spreadsheet reads as the start of a formula (OWASP, CSV injection): `=`, `+`, `-`, `@`, tab, CR. */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A text cell a spreadsheet will not run: one that starts like a formula gets a leading `'`, which
 * spreadsheets read as "this is text" (CONTRACT §7). Only text is changed: numbers are written as
 * numbers, so a negative metricSum stays -12.5, a value no spreadsheet runs as a formula.
 */
export function neutraliseFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

export function renderCsv(rows: Record<string, unknown>[], columns: string[], prefixNested: boolean): string {
  const flat = rows.map((r) => flatten(r, prefixNested));
  // csv has no null: an empty cell is null (suppressed or absent), which `""` would not distinguish.
  return stringify(
    flat.map((r) => columns.map((c) => (r[c] === null || r[c] === undefined ? '' : r[c]))),
    {
      header: true,
      columns,
      cast: { number: (n) => String(n), string: neutraliseFormula },
    },
  );
}

export function renderNdjson(rows: unknown[]): string {
  return rows.map((r) => `${JSON.stringify(r)}\n`).join('');
}

/**
 * Sets the metadata headers (every format) and sends csv or ndjson; returns false for json. JSON
 * headers are printable ASCII (`jsonHeaderValue`): the watermark names a client's event id. Cursors
 * and the checkpoint are base64url made here.
 */
export function sendFormatted(
  reply: FastifyReply,
  format: Format,
  metadata: Record<string, unknown>,
  rateLimit: RateLimitState,
  render: { csv: () => string; ndjson: () => string },
): boolean {
  reply.header('x-ratelimit-limit', String(rateLimit.limit));
  reply.header('x-ratelimit-remaining', String(rateLimit.remaining));
  reply.header('x-ratelimit-reset', new Date(rateLimit.resetAt).toISOString());
  const next = metadata.nextCursor;
  if (typeof next === 'string') reply.header('x-insights-next-cursor', next);
  if (metadata.schemaVersion) reply.header('x-insights-schema-version', String(metadata.schemaVersion));
  if (metadata.engineVersion) reply.header('x-insights-engine-version', String(metadata.engineVersion));
  if (metadata.watermark !== undefined) reply.header('x-insights-watermark', jsonHeaderValue(metadata.watermark));
  if (metadata.checkpoint !== undefined) reply.header('x-insights-checkpoint', String(metadata.checkpoint ?? ''));
  if (metadata.queryCost) reply.header('x-insights-query-cost', jsonHeaderValue(metadata.queryCost));
  if (metadata.suppression) reply.header('x-insights-suppression', jsonHeaderValue(metadata.suppression));
  if (metadata.freshness) reply.header('x-insights-freshness', jsonHeaderValue(metadata.freshness));
  // Everything but the rows, for clients that want the JSON metadata whole.
  reply.header('x-insights-metadata', jsonHeaderValue(metadata));
  if (format === 'json') return false;
  if (format === 'csv') reply.type('text/csv; charset=utf-8').send(Buffer.from(render.csv()));
  else reply.type('application/x-ndjson; charset=utf-8').send(Buffer.from(render.ndjson()));
  return true;
}
