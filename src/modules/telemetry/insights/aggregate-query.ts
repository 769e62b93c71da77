// Aggregate queries over hourly rollups (never raw events): window rules, cost ceiling, scan in
// day-sized pages checking the deadline between them, merge into the grain, suppress small cells,
// page the rows (1,000 a page) with signed cursors.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import { validationError, AppError } from '../../../platform/errors.js';
import {
  countRollups, DAY_MS, HOUR_MS, ROLLUP_RETENTION_MS, scanRollups, SKETCH_PRECISION, SKETCH_RELATIVE_STANDARD_ERROR, estimateUnion, watermarkOf,
  type Dimension, type DimensionFilters, type Watermark,
} from '../ingestion/index.js';
import { queryDigest, type CursorCodec } from './insight-cursor.js';
import { deadlineExceeded, passed, type Deadline } from './query-deadline.js';
import type { AggregateQueryBody, Filters, InsightMeasure } from './insights.schemas.js';
import type { RateLimitState } from './query-rate-limit.js';

export const MINIMUM_SUBJECTS = 20;
export const MAX_ROWS_PER_PAGE = 1000;
export const MAX_SCANNED_BUCKETS = 10_000;
export const ENGINE_VERSION = 'rollup-hll-v1';
const MAX_WINDOW_MS = 90 * DAY_MS;
const UNFILTERED_WINDOW_MS = DAY_MS;
/** Longest span one scan page reads (the deadline is checked between pages). */
const SCAN_PAGE_MS = 7 * DAY_MS;
/** About how many rollup rows a scan page reads. Pages cover whole cells, which are estimated and
 * let go of their sketches when the page is done: with every row of a 10,000-bucket query alive to
 * the end, the garbage collector copied and promoted them, and its pauses showed in the p95. */
const ROWS_PER_SCAN_PAGE = 2_000;

export interface QueryContext {
  db: Kysely<Database>;
  codec: CursorCodec;
  credential: string;
  envId: string;
  deadline: Deadline;
  rateLimit: RateLimitState;
}

export interface AggregateRowOut {
  bucketStart: string;
  dimensions: Record<string, string | null>;
  measures: Record<string, number | null>;
}

export function filtersOf(filters: Filters | undefined): DimensionFilters {
  const out: DimensionFilters = {};
  for (const [dim, value] of Object.entries(filters ?? {})) if (value !== undefined) out[dim as Dimension] = Array.isArray(value) ? value : [value];
  return out;
}

export function windowOf(from: string, to: string, maxMs: number, what: string) {
  const start = Date.parse(from);
  const end = Date.parse(to);
  if (!(start < end)) throw validationError('from must be before to.', [{ path: '/to', message: 'must be after from' }]);
  if (end - start > maxMs) throw validationError(`The window is longer than ${what}.`, [{ path: '/to', message: `at most ${what} after from` }]);
  return { start, end };
}

export const watermarkOut = (w: Watermark | null) => (w ? { receivedAt: new Date(w.receivedAt).toISOString(), eventId: w.eventId } : null);
export const freshnessOf = (w: Watermark | null, now: number) => ({ asOf: new Date(now).toISOString(), lagSeconds: w ? Math.max(0, Math.round((now - w.receivedAt) / 1000)) : null });

interface Cell {
  bucketStart: number;
  dimensions: (string | null)[];
  events: number;
  byKind: Record<string, number>;
  metricCount: number;
  metricSum: number;
  /** The stored sketches of the cell's buckets while its scan page is read. */
  sketches: Uint8Array[];
  /** Their union's estimate, once the page is done. */
  subjects: number;
}

function measureOf(cell: Cell, measure: InsightMeasure, subjects: number): number | null {
  switch (measure) {
    case 'events': return cell.events;
    case 'subjects': return subjects;
    case 'decisions': return cell.byKind.decision ?? 0;
    case 'assignments': return cell.byKind.assignment ?? 0;
    case 'exposures': return cell.byKind.exposure ?? 0;
    case 'outcomes': return cell.byKind.outcome ?? 0;
    case 'metricSum': return cell.metricSum;
    case 'metricMean': return cell.metricCount > 0 ? cell.metricSum / cell.metricCount : null;
  }
}

/** A measure as answered: a number that is not finite (no accepted value can make one: rollup sums are
 * bounded, and stored ones were repaired by migration 0130) is null, never a serialiser's failure. */
const finiteOrNull = (value: number | null) => (value !== null && Number.isFinite(value) ? value : null);

/** A cell's identity as a map key: length-prefixed values (injective whatever they hold), cheaper
 * per row than JSON. */
function cellKey(bucketStart: number, dimensions: readonly (string | null)[]): string {
  let key = String(bucketStart);
  for (const value of dimensions) key += value === null ? '|-' : `|${value.length}:${value}`;
  return key;
}

const KIND_MEASURES = new Set<InsightMeasure>(['decisions', 'assignments', 'exposures', 'outcomes']);

const compareCells = (a: Cell, b: Cell) => {
  if (a.bucketStart !== b.bucketStart) return a.bucketStart - b.bucketStart;
  for (let i = 0; i < a.dimensions.length; i++) {
    const x = a.dimensions[i] ?? '';
    const y = b.dimensions[i] ?? '';
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
};

export async function runAggregateQuery(ctx: QueryContext, body: AggregateQueryBody) {
  const requested = windowOf(body.from, body.to, MAX_WINDOW_MS, '90 days');
  const filters = filtersOf(body.filters);
  if (requested.end - requested.start > UNFILTERED_WINDOW_MS && !filters.flagKey && !filters.experimentId) {
    throw validationError('A window longer than 24 hours needs a flagKey or experimentId filter.', [{ path: '/filters', message: 'needs flagKey or experimentId for windows over 24 hours' }]);
  }
  const query = queryDigest(body as unknown as Record<string, unknown>);
  const now = ctx.deadline.startedAt;
  const resumed = body.cursor ? ctx.codec.open<{ offset: number }>('ia1_', body.cursor, { credential: ctx.credential, query, now }) : null;
  const offset = resumed?.position.offset ?? 0;
  const resumedScanned = resumed?.scanned ?? 0;

  const grainMs = body.grain === 'day' ? DAY_MS : HOUR_MS;
  const alignDown = (t: number) => Math.floor(t / grainMs) * grainMs;
  const alignUp = (t: number) => Math.ceil(t / grainMs) * grainMs;
  const retentionStart = Math.ceil((now - ROLLUP_RETENTION_MS) / HOUR_MS) * HOUR_MS;
  const effStart = Math.max(alignDown(requested.start), alignUp(retentionStart));
  const effEnd = Math.min(alignUp(requested.end), alignUp(now));
  const scan = { envId: ctx.envId, filters, from: effStart, to: Math.max(effStart, effEnd) };

  const resumeCursor = (scanned: number) => ctx.codec.issue('ia1_', { credential: ctx.credential, query, issuedAt: ctx.deadline.now(), scanned, position: { offset } });
  if (passed(ctx.deadline)) throw deadlineExceeded(ctx.deadline, { cursor: resumeCursor(resumedScanned), scannedField: 'scannedBuckets', request: 0, resumed: resumedScanned });

  const planned = scan.to > scan.from ? await countRollups(ctx.db, scan) : 0;
  if (planned > MAX_SCANNED_BUCKETS) {
    throw new AppError(429, 'query_too_costly', `The query would scan ${planned} buckets; the ceiling is ${MAX_SCANNED_BUCKETS}.`, {
      resolution: 'Narrow the window, add filters or use fewer dimensions.',
      metadata: { queryCost: { scannedBuckets: planned, limit: MAX_SCANNED_BUCKETS } },
    });
  }

  // Pages of whole grain buckets, at most a week each; the deadline is checked between pages.
  const dims = (body.dimensions ?? []) as Dimension[];
  const measures = body.measures as InsightMeasure[];
  const columns = {
    dimensions: dims,
    kind: measures.some((m) => KIND_MEASURES.has(m)),
    metrics: measures.includes('metricSum') || measures.includes('metricMean'),
  };
  // Pages span whole grain buckets (so a cell never spans two pages), about ROWS_PER_SCAN_PAGE rows each.
  const span = scan.to - scan.from;
  const pageMs = Math.min(SCAN_PAGE_MS, Math.max(grainMs, Math.floor((span * ROWS_PER_SCAN_PAGE) / Math.max(1, planned) / grainMs) * grainMs));
  const done: Cell[] = [];
  let scanned = 0;
  for (let pageStart = scan.from; pageStart < scan.to; pageStart += pageMs) {
    if (passed(ctx.deadline)) throw deadlineExceeded(ctx.deadline, { cursor: resumeCursor(resumedScanned + scanned), scannedField: 'scannedBuckets', request: scanned, resumed: resumedScanned });
    const cells = new Map<string, Cell>();
    scanned += await scanRollups(ctx.db, { ...scan, from: pageStart, to: Math.min(scan.to, pageStart + pageMs) }, columns, (row) => {
      const bucketStart = Math.floor(row.bucketStart / grainMs) * grainMs;
      const key = cellKey(bucketStart, row.dimensions);
      let cell = cells.get(key);
      if (!cell) cells.set(key, (cell = { bucketStart, dimensions: [...row.dimensions], events: 0, byKind: {}, metricCount: 0, metricSum: 0, sketches: [], subjects: 0 }));
      cell.events += row.events;
      if (row.kind !== null) cell.byKind[row.kind] = (cell.byKind[row.kind] ?? 0) + row.events;
      cell.metricCount += row.metricCount;
      cell.metricSum += row.metricSum;
      cell.sketches.push(row.subjects);
    });
    for (const cell of cells.values()) {
      // The estimate is approximate (about 1.6 %): never more subjects than the cell has events.
      cell.subjects = Math.min(cell.events, Math.round(estimateUnion(cell.sketches)));
      cell.sketches = [];
      done.push(cell);
    }
    ctx.deadline.pages++;
  }
  if (passed(ctx.deadline)) throw deadlineExceeded(ctx.deadline, { cursor: resumeCursor(resumedScanned + scanned), scannedField: 'scannedBuckets', request: scanned, resumed: resumedScanned });

  const ordered = done.sort(compareCells);
  const page = ordered.slice(offset, offset + MAX_ROWS_PER_PAGE);
  let suppressedCells = 0;
  const rows: AggregateRowOut[] = page.map((cell) => {
    const subjects = cell.subjects;
    const suppressed = subjects < MINIMUM_SUBJECTS;
    if (suppressed) suppressedCells++;
    return {
      bucketStart: new Date(cell.bucketStart).toISOString(),
      dimensions: Object.fromEntries(dims.map((d, i) => [d, cell.dimensions[i] ?? null])),
      measures: Object.fromEntries(measures.map((m) => [m, suppressed ? null : finiteOrNull(measureOf(cell, m, subjects))])),
    };
  });
  const more = offset + MAX_ROWS_PER_PAGE < ordered.length;
  const watermark = await watermarkOf(ctx.db, ctx.envId);
  return {
    schemaVersion: 'insights/v1' as const,
    engineVersion: ENGINE_VERSION,
    rows,
    requestedWindow: { from: new Date(requested.start).toISOString(), to: new Date(requested.end).toISOString() },
    effectiveWindow: { from: new Date(scan.from).toISOString(), to: new Date(scan.to).toISOString() },
    watermark: watermarkOut(watermark),
    freshness: freshnessOf(watermark, ctx.deadline.now()),
    queryCost: { scannedBuckets: scanned, units: scanned + rows.length },
    approximation: { subjects: `hyperloglog-p${SKETCH_PRECISION}`, relativeStandardError: SKETCH_RELATIVE_STANDARD_ERROR },
    suppression: { minimumSubjects: MINIMUM_SUBJECTS as 20, suppressedCells },
    rateLimit: { limit: ctx.rateLimit.limit, remaining: ctx.rateLimit.remaining, resetAt: new Date(ctx.rateLimit.resetAt).toISOString() },
    nextCursor: more ? ctx.codec.issue('ia1_', { credential: ctx.credential, query, issuedAt: ctx.deadline.now(), scanned: resumedScanned + scanned, position: { offset: offset + MAX_ROWS_PER_PAGE } }) : null,
  };
}
