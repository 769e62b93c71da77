// Event queries: redacted raw events newest first (event time, then id), within a 7-day window inside
// the 30-day retention, at most 100 a page, with signed `ie1_` cursors. An unprefixed legacy cursor
// (base64url of {"receivedAt": ms, "eventId": "…"}) is redeemed once and answered with an ie1_ cursor.
import { createHash } from 'node:crypto';
import { validationError } from '../../../platform/errors.js';
import {
  DAY_MS,
  RAW_RETENTION_MS,
  telemetryReadModel,
  type RedactedEvent,
  type Watermark,
} from '../ingestion/index.js';
import { queryDigest } from './insight-cursor.js';
import { deadlineExceeded, execution, passed } from './query-deadline.js';
import { filtersOf, freshnessOf, windowOf, type QueryContext } from './aggregate-query.js';
import type { EventQueryBody } from './insights.schemas.js';

const { eventTimeOf, listEvents, redeemLegacyCursor, watermarkOf } = telemetryReadModel;

type Position = { ts: number; id: string } | null;

export interface EventRowOut {
  id: string;
  kind: string;
  timestamp: string;
  receivedAt: string;
  flagKey: string | null;
  variant: string | null;
  reason: string | null;
  experimentId: string | null;
  iterationId: string | null;
  iterationRevision: number | null;
  metricKey: string | null;
  metricValue: number | null;
  source: { appId: string; env: string };
}

const legacyRefused = (message: string) =>
  validationError(
    message,
    [{ path: '/cursor', message }],
    'Pass the nextCursor of a previous page unchanged, or start without a cursor.',
  );

function legacyPositionOf(cursor: string): { receivedAt: number; eventId: string } | null {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      receivedAt?: unknown;
      eventId?: unknown;
    };
    if (typeof parsed?.receivedAt !== 'number' || !Number.isInteger(parsed.receivedAt) || parsed.receivedAt < 0)
      return null;
    if (typeof parsed.eventId !== 'string' || parsed.eventId.length < 1 || parsed.eventId.length > 128) return null;
    if (Object.keys(parsed).length !== 2) return null;
    return { receivedAt: parsed.receivedAt, eventId: parsed.eventId };
  } catch {
    return null;
  }
}

/** The checkpoint: the newest event this environment has included so far, opaque to clients. */
const checkpointOf = (w: Watermark | null) =>
  w ? `ck1_${Buffer.from(JSON.stringify([w.receivedAt, w.eventId])).toString('base64url')}` : null;

export async function runEventQuery(ctx: QueryContext, body: EventQueryBody, source: { appId: string; env: string }) {
  const requested = windowOf(body.from, body.to, 7 * DAY_MS, '7 days');
  const query = queryDigest(body as unknown as Record<string, unknown>);
  const now = ctx.deadline.startedAt;
  const limit = body.limit ?? 100;

  let position: Position = null;
  let resumedScanned = 0;
  if (body.cursor !== undefined) {
    if (body.cursor.startsWith('ie1_')) {
      const claims = ctx.codec.open<Position>('ie1_', body.cursor, { credential: ctx.credential, query, now });
      position = claims.position;
      resumedScanned = claims.scanned;
    } else {
      const legacy = legacyPositionOf(body.cursor);
      if (!legacy) throw legacyRefused('The cursor does not start with ie1_.');
      const digest = createHash('sha256').update(`${ctx.envId}\n${body.cursor}`).digest('hex');
      if (!(await redeemLegacyCursor(ctx.db, digest, now)))
        throw legacyRefused('This legacy cursor was already used; continue with the ie1_ cursor it was answered with.');
      const ts = await eventTimeOf(ctx.db, ctx.envId, legacy.eventId);
      position = ts === null ? { ts: legacy.receivedAt, id: '' } : { ts, id: legacy.eventId };
    }
  }

  const from = Math.max(requested.start, now - RAW_RETENTION_MS);
  const to = requested.end;
  const cursorAt = (p: Position, scanned: number) =>
    ctx.codec.issue('ie1_', { credential: ctx.credential, query, issuedAt: ctx.deadline.now(), scanned, position: p });
  if (passed(ctx.deadline))
    throw deadlineExceeded(ctx.deadline, {
      cursor: cursorAt(position, resumedScanned),
      scannedField: 'scannedEvents',
      request: 0,
      resumed: resumedScanned,
    });

  const found: RedactedEvent[] =
    to > from
      ? await listEvents(ctx.db, {
          envId: ctx.envId,
          from,
          to,
          kinds: body.kinds,
          filters: filtersOf(body.filters),
          ...(position ? { before: position } : {}),
          limit: limit + 1,
        })
      : [];
  ctx.deadline.pages++;
  const scanned = found.length;
  if (passed(ctx.deadline))
    throw deadlineExceeded(ctx.deadline, {
      cursor: cursorAt(position, resumedScanned + scanned),
      scannedField: 'scannedEvents',
      request: scanned,
      resumed: resumedScanned,
    });

  const page = found.slice(0, limit);
  const last = page[page.length - 1];
  const watermark = await watermarkOf(ctx.db, ctx.envId);
  const events: EventRowOut[] = page.map((e) => ({
    id: e.id,
    kind: e.kind,
    timestamp: new Date(e.ts).toISOString(),
    receivedAt: new Date(e.receivedAt).toISOString(),
    flagKey: e.flagKey,
    variant: e.variant,
    reason: e.reason,
    experimentId: e.experimentId,
    iterationId: e.iterationId,
    iterationRevision: e.iterationRevision,
    metricKey: e.metricKey,
    metricValue: e.metricValue,
    source,
  }));
  const { deadline, elapsed } = execution(ctx.deadline);
  return {
    events,
    checkpoint: checkpointOf(watermark),
    freshness: freshnessOf(watermark, ctx.deadline.now()),
    queryCost: { scannedEvents: scanned },
    execution: { deadline, elapsed },
    // A legacy cursor is always answered with a bound ie1_ cursor, even on the last page.
    nextCursor:
      found.length > limit || (body.cursor !== undefined && !body.cursor.startsWith('ie1_'))
        ? cursorAt(last ? { ts: last.ts, id: last.id } : position, resumedScanned + scanned)
        : null,
  };
}
