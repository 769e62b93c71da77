// Aggregate queries over hourly rollups (never raw events): window rules, cost ceiling, scan in
// day-sized pages checking the deadline between them, merge into the grain (leaving out the parts of
// a total that would be suppressed on their own), suppress small cells, page the rows (1,000 a page)
// with signed cursors.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import { validationError, AppError } from '../../../platform/errors.js';
import {
  DAY_MS,
  DIMENSIONS,
  HOUR_MS,
  ROLLUP_RETENTION_MS,
  SKETCH_PRECISION,
  SKETCH_RELATIVE_STANDARD_ERROR,
  estimateUnion,
  telemetryReadModel,
  type Dimension,
  type DimensionFilters,
  type Watermark,
} from '../ingestion/index.js';
import { queryDigest, type CursorCodec } from './insight-cursor.js';
import { deadlineExceeded, passed, type Deadline } from './query-deadline.js';
import type { AggregateQueryBody, Filters, InsightMeasure } from './insights.schemas.js';
import type { RateLimitState } from './query-rate-limit.js';

const { countRollups, scanRollups, watermarkOf } = telemetryReadModel;

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
  for (const [dim, value] of Object.entries(filters ?? {}))
    if (value !== undefined) out[dim as Dimension] = Array.isArray(value) ? value : [value];
  return out;
}

export function windowOf(from: string, to: string, maxMs: number, what: string) {
  const start = Date.parse(from);
  const end = Date.parse(to);
  if (!(start < end))
    throw validationError('from must be before to.', [{ path: '/to', message: 'must be after from' }]);
  if (end - start > maxMs)
    throw validationError(`The window is longer than ${what}.`, [
      { path: '/to', message: `at most ${what} after from` },
    ]);
  return { start, end };
}

export const watermarkOut = (w: Watermark | null) =>
  w ? { receivedAt: new Date(w.receivedAt).toISOString(), eventId: w.eventId } : null;
export const freshnessOf = (w: Watermark | null, now: number) => ({
  asOf: new Date(now).toISOString(),
  lagSeconds: w ? Math.max(0, Math.round((now - w.receivedAt) / 1000)) : null,
});

/** One rollup row of a cell, kept while its scan page is read. */
interface Part {
  /** Its values of the dimensions the query does not group by (`ungrouped` order), null when absent. */
  others: readonly (string | null)[];
  kind: string | null;
  events: number;
  metricCount: number;
  metricSum: number;
  subjects: Uint8Array;
}

/**
 * A lower bound of the subjects an encoded sketch counts: its registers that are not zero (two
 * subjects share a register at most as often as they collide). Estimates never go below it: linear
 * counting gives M·ln(M/zeros) ≥ M − zeros, and the raw estimate is used only above 2.5·M.
 */
function registersOf(bytes: Uint8Array): number {
  // Sparse: a byte of form, then 3 bytes a register, each register once (subject-sketch.ts).
  if (bytes[0] === 1) return (bytes.length - 1) / 3;
  let registers = 0;
  for (let i = 1; i < bytes.length; i++) if (bytes[i] !== 0) registers++;
  return registers;
}

interface Cell {
  bucketStart: number;
  dimensions: (string | null)[];
  /** Its rollup rows while its scan page is read; settled (`settle`) into the sums below. */
  parts: Part[];
  events: number;
  byKind: Record<string, number>;
  metricCount: number;
  metricSum: number;
  /** The estimate of the union of the included parts' sketches, once the page is done. */
  subjects: number;
  /** How many (dimension, value) parts settle left out. */
  excludedParts: number;
}

/**
 * Whether a part of a cell would be suppressed as a cell of its own: fewer than MINIMUM_SUBJECTS
 * approximate subjects, and never more subjects than events (events without a subject count none).
 */
function suppressedOnItsOwn(parts: readonly Part[]): boolean {
  let events = 0;
  for (const part of parts) {
    if (registersOf(part.subjects) >= MINIMUM_SUBJECTS) return false;
    events += part.events;
  }
  if (events < MINIMUM_SUBJECTS) return true;
  return Math.round(estimateUnion(parts.map((p) => p.subjects))) < MINIMUM_SUBJECTS;
}

/**
 * Sums a cell over the parts it may include (docs/insights.md, "Differencing"): for each dimension
 * the query does not group by, a value whose own cell (this cell with that dimension set to that
 * value) would be suppressed is left out, so neither a multi-valued filter nor a total over that
 * dimension can be differenced against a narrower query to expose a suppressed cell.
 */
function settle(cell: Cell, ungrouped: number): void {
  let excludedValues = 0;
  let excluded: Set<Part> | null = null;
  // When every part counts enough subjects on its own, no value can be left out.
  const anySmall = cell.parts.some((part) => registersOf(part.subjects) < MINIMUM_SUBJECTS);
  for (let d = 0; anySmall && d < ungrouped; d++) {
    const byValue = new Map<string | null, Part[]>();
    for (const part of cell.parts) {
      const value = part.others[d]!;
      const group = byValue.get(value);
      if (group) group.push(part);
      else byValue.set(value, [part]);
    }
    // One value: its own cell is this cell, which the minimum cell rule covers.
    if (byValue.size < 2) continue;
    for (const group of byValue.values()) {
      if (!suppressedOnItsOwn(group)) continue;
      excludedValues++;
      excluded ??= new Set();
      for (const part of group) excluded.add(part);
    }
  }
  const sketches: Uint8Array[] = [];
  for (const part of cell.parts) {
    if (excluded?.has(part)) continue;
    cell.events += part.events;
    if (part.kind !== null) cell.byKind[part.kind] = (cell.byKind[part.kind] ?? 0) + part.events;
    cell.metricCount += part.metricCount;
    cell.metricSum += part.metricSum;
    sketches.push(part.subjects);
  }
  // The estimate is approximate (about 1.6 %): never more subjects than the cell has events.
  cell.subjects = Math.min(cell.events, Math.round(estimateUnion(sketches)));
  cell.excludedParts = excludedValues;
  cell.parts = [];
}

function measureOf(cell: Cell, measure: InsightMeasure, subjects: number): number | null {
  switch (measure) {
    case 'events':
      return cell.events;
    case 'subjects':
      return subjects;
    case 'decisions':
      return cell.byKind.decision ?? 0;
    case 'assignments':
      return cell.byKind.assignment ?? 0;
    case 'exposures':
      return cell.byKind.exposure ?? 0;
    case 'outcomes':
      return cell.byKind.outcome ?? 0;
    case 'metricSum':
      return cell.metricSum;
    case 'metricMean':
      return cell.metricCount > 0 ? cell.metricSum / cell.metricCount : null;
  }
}

/** A measure as answered: a number that is not finite (no accepted value can make one: rollup sums are
 * bounded, and stored ones were repaired by migration 0130) is null, never a serialiser's failure. */
const finiteOrNull = (value: number | null) => (value !== null && Number.isFinite(value) ? value : null);

/**
 * A cell's grouped values as a map key within its bucket: the value itself when the query groups
 * by one dimension (Map keys may be null), otherwise length-prefixed values (injective whatever
 * they hold). Read from the row without copying the values out: for the usual one dimension,
 * finding a row's cell allocates nothing.
 */
function groupKey(values: readonly (string | null)[], count: number): string | null {
  if (count === 1) return values[0]!;
  let key = '';
  for (let i = 0; i < count; i++) {
    const value = values[i]!;
    key += value === null ? '|-' : `|${value.length}:${value}`;
  }
  return key;
}

/** The `others` of a part when the query groups by every dimension it reads. */
const NO_OTHERS: readonly (string | null)[] = Object.freeze([]);

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
    throw validationError('A window longer than 24 hours needs a flagKey or experimentId filter.', [
      { path: '/filters', message: 'needs flagKey or experimentId for windows over 24 hours' },
    ]);
  }
  const query = queryDigest(body as unknown as Record<string, unknown>);
  const now = ctx.deadline.startedAt;
  const resumed = body.cursor
    ? ctx.codec.open<{ offset: number }>('ia1_', body.cursor, { credential: ctx.credential, query, now })
    : null;
  const offset = resumed?.position.offset ?? 0;
  const resumedScanned = resumed?.scanned ?? 0;

  const grainMs = body.grain === 'day' ? DAY_MS : HOUR_MS;
  const alignDown = (t: number) => Math.floor(t / grainMs) * grainMs;
  const alignUp = (t: number) => Math.ceil(t / grainMs) * grainMs;
  const retentionStart = Math.ceil((now - ROLLUP_RETENTION_MS) / HOUR_MS) * HOUR_MS;
  const effStart = Math.max(alignDown(requested.start), alignUp(retentionStart));
  const effEnd = Math.min(alignUp(requested.end), alignUp(now));
  const scan = { envId: ctx.envId, filters, from: effStart, to: Math.max(effStart, effEnd) };

  const resumeCursor = (scanned: number) =>
    ctx.codec.issue('ia1_', {
      credential: ctx.credential,
      query,
      issuedAt: ctx.deadline.now(),
      scanned,
      position: { offset },
    });
  if (passed(ctx.deadline))
    throw deadlineExceeded(ctx.deadline, {
      cursor: resumeCursor(resumedScanned),
      scannedField: 'scannedBuckets',
      request: 0,
      resumed: resumedScanned,
    });

  const planned = scan.to > scan.from ? await countRollups(ctx.db, scan) : 0;
  if (planned > MAX_SCANNED_BUCKETS) {
    throw new AppError(
      429,
      'query_too_costly',
      `The query would scan ${planned} buckets; the ceiling is ${MAX_SCANNED_BUCKETS}.`,
      {
        resolution: 'Narrow the window, add filters or use fewer dimensions.',
        metadata: { queryCost: { scannedBuckets: planned, limit: MAX_SCANNED_BUCKETS } },
      },
    );
  }

  // Pages of whole grain buckets, at most a week each; the deadline is checked between pages.
  const dims = (body.dimensions ?? []) as Dimension[];
  // The dimensions the query totals over, read too so a cell can leave out a value of one whose own
  // cell would be suppressed (settle); a dimension filtered to one value has nothing to leave out.
  const ungrouped = DIMENSIONS.filter((d) => !dims.includes(d) && !(filters[d]?.length === 1));
  const measures = body.measures as InsightMeasure[];
  const columns = {
    dimensions: [...dims, ...ungrouped],
    kind: measures.some((m) => KIND_MEASURES.has(m)),
    metrics: measures.includes('metricSum') || measures.includes('metricMean'),
  };
  // Pages span whole grain buckets (so a cell never spans two pages), about ROWS_PER_SCAN_PAGE rows each.
  const span = scan.to - scan.from;
  const pageMs = Math.min(
    SCAN_PAGE_MS,
    Math.max(grainMs, Math.floor((span * ROWS_PER_SCAN_PAGE) / Math.max(1, planned) / grainMs) * grainMs),
  );
  const done: Cell[] = [];
  let scanned = 0;
  for (let pageStart = scan.from; pageStart < scan.to; pageStart += pageMs) {
    if (passed(ctx.deadline))
      throw deadlineExceeded(ctx.deadline, {
        cursor: resumeCursor(resumedScanned + scanned),
        scannedField: 'scannedBuckets',
        request: scanned,
        resumed: resumedScanned,
      });
    // The page's cells by bucket, then by grouped values, in the order they were first seen.
    // Rows come in bucket order, so a row's bucket is nearly always the previous row's.
    const buckets = new Map<number, Map<string | null, Cell>>();
    const cells: Cell[] = [];
    let lastStart = NaN;
    let bucket: Map<string | null, Cell> | undefined;
    scanned += await scanRollups(
      ctx.db,
      { ...scan, from: pageStart, to: Math.min(scan.to, pageStart + pageMs) },
      columns,
      (row) => {
        // Issue 24 (insights tail): nothing is allocated per row but the part itself and its other
        // values; the grouped values are copied once per cell.
        const bucketStart = Math.floor(row.bucketStart / grainMs) * grainMs;
        if (bucketStart !== lastStart) {
          lastStart = bucketStart;
          bucket = buckets.get(bucketStart);
          if (bucket === undefined) buckets.set(bucketStart, (bucket = new Map()));
        }
        const key = groupKey(row.dimensions, dims.length);
        let cell = bucket!.get(key);
        if (!cell) {
          bucket!.set(
            key,
            (cell = {
              bucketStart,
              dimensions: row.dimensions.slice(0, dims.length),
              parts: [],
              events: 0,
              byKind: {},
              metricCount: 0,
              metricSum: 0,
              subjects: 0,
              excludedParts: 0,
            }),
          );
          cells.push(cell);
        }
        const others = ungrouped.length === 0 ? NO_OTHERS : row.dimensions.slice(dims.length);
        cell.parts.push({
          others,
          kind: row.kind,
          events: row.events,
          metricCount: row.metricCount,
          metricSum: row.metricSum,
          subjects: row.subjects,
        });
      },
    );
    for (const cell of cells) {
      settle(cell, ungrouped.length);
      done.push(cell);
    }
    ctx.deadline.pages++;
  }
  if (passed(ctx.deadline))
    throw deadlineExceeded(ctx.deadline, {
      cursor: resumeCursor(resumedScanned + scanned),
      scannedField: 'scannedBuckets',
      request: scanned,
      resumed: resumedScanned,
    });

  const ordered = done.sort(compareCells);
  const page = ordered.slice(offset, offset + MAX_ROWS_PER_PAGE);
  let suppressedCells = 0;
  let excludedParts = 0;
  const rows: AggregateRowOut[] = page.map((cell) => {
    excludedParts += cell.excludedParts;
    const subjects = cell.subjects;
    const suppressed = subjects < MINIMUM_SUBJECTS;
    if (suppressed) suppressedCells++;
    // Built field by field: no entry arrays per row.
    const dimensions: Record<string, string | null> = {};
    for (let i = 0; i < dims.length; i++) dimensions[dims[i]!] = cell.dimensions[i] ?? null;
    const values: Record<string, number | null> = {};
    for (const m of measures) values[m] = suppressed ? null : finiteOrNull(measureOf(cell, m, subjects));
    return { bucketStart: new Date(cell.bucketStart).toISOString(), dimensions, measures: values };
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
    approximation: {
      subjects: `hyperloglog-p${SKETCH_PRECISION}`,
      relativeStandardError: SKETCH_RELATIVE_STANDARD_ERROR,
    },
    suppression: { minimumSubjects: MINIMUM_SUBJECTS as 20, suppressedCells, excludedParts },
    rateLimit: {
      limit: ctx.rateLimit.limit,
      remaining: ctx.rateLimit.remaining,
      resetAt: new Date(ctx.rateLimit.resetAt).toISOString(),
    },
    nextCursor: more
      ? ctx.codec.issue('ia1_', {
          credential: ctx.credential,
          query,
          issuedAt: ctx.deadline.now(),
          scanned: resumedScanned + scanned,
          position: { offset: offset + MAX_ROWS_PER_PAGE },
        })
      : null,
  };
}
