// Per-item validation of a batch: an invalid item is a permanent error of that item, never of the
// batch. The schema is compiled once; the kind-dependent requirements, size limits and the time
// window are checked after it. Value and attribute walks are bounded in depth before being measured.
// Numbers that are not finite and prototype keys, which the platform refuses in every other body,
// are refused here item by item (the batch route's parser leaves its items to this function).
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { findRefusedValue } from '../../../platform/json-values.js';
import { eventDigest } from './event-digest.js';
import { EventItem } from './telemetry.schemas.js';
import { isDateTime } from './timestamp-format.js';
import { FUTURE_TOLERANCE_MS, RAW_RETENTION_MS, type TelemetryEvent, type ValidEvent } from './telemetry.model.js';

const ajv = new Ajv.default({
  allErrors: false,
  strict: false,
  strictNumbers: true,
  coerceTypes: false,
  removeAdditional: false,
});
addFormats.default(ajv);
ajv.addFormat('date-time', isDateTime);
const checkItem = ajv.compile(EventItem);

const MAX_VALUE_BYTES = 1024;
const MAX_ATTRIBUTES_BYTES = 2048;
const MAX_DEPTH = 16;

export interface ItemError {
  code: string;
  message: string;
}

function deeperThan(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (limit === 0) return true;
  for (const child of Array.isArray(value) ? value : Object.values(value))
    if (deeperThan(child, limit - 1)) return true;
  return false;
}

function sizeError(field: string, value: unknown, max: number): ItemError | null {
  if (value === undefined) return null;
  if (deeperThan(value, MAX_DEPTH))
    return { code: 'validation_error', message: `/${field} is nested deeper than ${MAX_DEPTH} levels.` };
  if (Buffer.byteLength(JSON.stringify(value)) > max)
    return { code: 'validation_error', message: `/${field} is larger than ${max} bytes serialised.` };
  return null;
}

const invalid = (message: string): ItemError => ({ code: 'validation_error', message });

/** An unpaired surrogate (`\ud800` alone): what `\p{Cs}` matches once code points are read. */
const UNPAIRED_SURROGATE = /\p{Cs}/u;

/**
 * The first top-level string field holding an unpaired surrogate. Those fields are stored as text,
 * whose UTF-8 cannot hold one: the database kept U+FFFD instead, so the stored id no longer matched
 * the one sent and an event that was stored was answered `event_id_conflict`. (value and attributes
 * are stored as JSON text, which escapes them, and come back as sent.)
 */
function unpairedSurrogateField(raw: Record<string, unknown>): string | null {
  for (const field in raw) {
    const value = raw[field];
    if (typeof value === 'string' && UNPAIRED_SURROGATE.test(value)) return field;
  }
  return null;
}

export function idOf(item: unknown): string | null {
  const id = (item as { id?: unknown } | null)?.id;
  return typeof id === 'string' && id.length >= 1 && id.length <= 128 ? id : null;
}

/** The event, or why the item is a permanent error. `now` is the ingestion clock. */
export function validateItem(item: unknown, index: number, now: number): ValidEvent | ItemError {
  const refused = findRefusedValue(item);
  if (refused) return invalid(`${refused.path} ${refused.problem}.`);
  if (!checkItem(item)) {
    const e = checkItem.errors?.[0];
    const params = (e?.params ?? {}) as Record<string, unknown>;
    let path = e?.instancePath ?? '';
    if (e?.keyword === 'additionalProperties')
      return invalid(`${path}/${String(params.additionalProperty)} is not a field of a version-1 event.`);
    if (e?.keyword === 'required') return invalid(`${path}/${String(params.missingProperty)} is required.`);
    if (!path) path = '/';
    return invalid(`${path} ${e?.message ?? 'is invalid'}.`);
  }
  const raw = item as unknown as Record<string, unknown> & { kind: TelemetryEvent['kind']; timestamp: string };
  const unpaired = unpairedSurrogateField(raw);
  if (unpaired) return invalid(`/${unpaired} contains an unpaired UTF-16 surrogate, which text cannot hold.`);
  if (raw.kind !== 'decision' && raw.targetingKey === undefined)
    return invalid(`/targetingKey is required on ${raw.kind} events.`);
  if ((raw.kind === 'decision' || raw.kind === 'exposure') && raw.flagKey === undefined)
    return invalid(`/flagKey is required on ${raw.kind} events.`);
  if (raw.kind === 'outcome' && raw.metricKey === undefined)
    return invalid('/metricKey is required on outcome events.');
  const tooBig =
    sizeError('value', raw.value, MAX_VALUE_BYTES) ?? sizeError('attributes', raw.attributes, MAX_ATTRIBUTES_BYTES);
  if (tooBig) return tooBig;
  const ts = Date.parse(raw.timestamp);
  if (!Number.isFinite(ts)) return invalid('/timestamp is not an RFC 3339 date-time.');
  if (ts > now + FUTURE_TOLERANCE_MS)
    return { code: 'timestamp_out_of_range', message: '/timestamp is more than 5 minutes in the future.' };
  if (ts < now - RAW_RETENTION_MS)
    return { code: 'timestamp_out_of_range', message: '/timestamp is older than the 30-day retention.' };

  // The item's fields without its timestamp, in one copy, and the parsed time after them.
  const { timestamp: _timestamp, ...fields } = raw;
  const event = fields as unknown as TelemetryEvent;
  event.ts = ts;
  if (event.kind === 'outcome' && event.metricValue === undefined) event.metricValue = 1;
  return { index, event, contentHash: eventDigest(event) };
}
