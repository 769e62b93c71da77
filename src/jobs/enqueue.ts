// Enqueueing is a plain insert on the caller's executor, so a job commits (or not) with the change
// that asked for it: an export delivery is queued in the same transaction as the export it delivers.
import type { Executor } from '../db/transaction.js';
import { newId } from '../platform/ids.js';
import { advanceQueued, insertJob } from './jobs.repository.js';

export const DEFAULT_MAX_ATTEMPTS = 5;
/** Payloads are small descriptions of work (ids, windows), never the data itself. */
export const MAX_PAYLOAD_BYTES = 64 * 1024;

export interface EnqueueRequest {
  kind: string;
  payload: unknown;
  /** When the job becomes due (ms since the epoch); default: now. */
  runAt?: number;
  /** At most one queued job holds a key: enqueueing again answers the queued job. */
  dedupeKey?: string;
  maxAttempts?: number;
}

export interface EnqueueResult {
  id: string;
  /** True when a queued job already held the dedupe key; nothing was inserted. */
  deduplicated: boolean;
}

export async function enqueue(
  db: Executor,
  request: EnqueueRequest,
  now: () => number = Date.now,
): Promise<EnqueueResult> {
  if (!request.kind) throw new Error('a job needs a kind');
  const maxAttempts = request.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1)
    throw new Error(`maxAttempts must be a positive integer, got ${maxAttempts}`);
  const payload = JSON.stringify(request.payload ?? null);
  if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES)
    throw new Error(`job payload of ${request.kind} exceeds ${MAX_PAYLOAD_BYTES} bytes`);
  const at = new Date(now()).toISOString();
  return insertJob(db, {
    id: newId('job'),
    kind: request.kind,
    payload,
    state: 'queued',
    run_at: new Date(request.runAt ?? now()).toISOString(),
    attempts: 0,
    max_attempts: maxAttempts,
    lease_owner: null,
    lease_expires_at: null,
    last_error: null,
    dedupe_key: request.dedupeKey ?? null,
    created_at: at,
    updated_at: at,
    finished_at: null,
  });
}

/** The dedupe key of a recurring job's one queued occurrence. */
export function recurringKeyOf(kind: string): string {
  return `recurring:${kind}`;
}

/**
 * Makes the queued occurrence of a recurring job due now, on the caller's executor (so only if the
 * change that has work for it commits): an export destination set active is scheduled at the next
 * poll instead of at the end of its period. Nothing when no occurrence is queued (one is running).
 */
export async function runRecurringNow(db: Executor, kind: string, now: () => number = Date.now): Promise<void> {
  await advanceQueued(db, recurringKeyOf(kind), new Date(now()).toISOString());
}
