// Turns accepted raw events into deliveries and sends them (issue 13). Two job kinds:
// - `exports.schedule` (recurring, every 2 s): per active destination, reads the environment's raw
//   events after the destination's position in commit order (decision 0036: nothing committed late
//   is passed over), cuts matching ones into deliveries of `batchSize`, and hands due pending
//   deliveries to workers as `exports.deliver` jobs (one queued job per delivery).
// - `exports.deliver`: one attempt of one delivery. The attempt first claims the delivery in one
//   UPDATE (decision 0037): one owner at a time, until a deadline longer than any send; a second job
//   for the same delivery finds it claimed and leaves it. An owner that dies leaves the claim to
//   lapse, and the delivery is claimed again (same `webhook-id`: at least once). A deliver job that
//   goes dead makes its delivery `failed`, which an operator can retry.
import type { Kysely } from 'kysely';
import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import type { Database } from '../../../db/database.js';
import { inTransaction, type Executor } from '../../../db/transaction.js';
import { newId } from '../../../platform/ids.js';
import type { SecretBox } from '../../../platform/secret-box.js';
import { DEFAULT_MAX_ATTEMPTS, enqueue, retryDelayMs, type JobRunner } from '../../../jobs/index.js';
import { eventsAfter, eventsByIds, eventsCommittedAfter, RAW_RETENTION_MS, type CanonicalEvent, type FeedPosition } from '../ingestion/index.js';
import { AddressNotAllowedError, resolveDeliveryAddress, type ExportPolicy, type Resolver } from './export-policy.js';
import type { DestinationFilters } from './exports.model.js';
import * as destinations from './exports.repository.js';
import { signingSecretsOf } from './exports.service.js';
import * as deliveries from './webhook-deliveries.repository.js';
import type { DeliveryError } from './webhook-deliveries.repository.js';
import type { WebhookSender } from './webhook-sender.js';
import type { JournalService } from '../../core/journal/index.js';
import type { BackfillPage } from './backfills.js';

export const SCHEDULE_JOB = 'exports.schedule';
export const DELIVER_JOB = 'exports.deliver';
export const SCHEDULE_EVERY_MS = 2_000;
export const MAX_ATTEMPTS = 12;
/** Attempts of one deliver job (the jobs default); owners of a job's claims are `<job id>#1..N`. */
const DELIVER_JOB_ATTEMPTS = DEFAULT_MAX_ATTEMPTS;
/** How long a claim lasts: longer than the longest send (SEND_DEADLINE_MS), so a live owner keeps it. */
export const CLAIM_MS = 60_000;
/** An attempt's whole send (connect, TLS, request, answer) is abandoned past this. */
export const SEND_DEADLINE_MS = 45_000;
/** Deliveries one deliver job may send in a row (and for how long, real time) while a backlog lasts. */
const CHAIN_MAX = 100;
const CHAIN_MS = 10_000;
const FUTURE_TOLERANCE_MS = 5 * 60_000;
/** Raw events one backfill page reads (one transaction: the deliveries it cuts and the cursor). */
export const BACKFILL_PAGE = 1000;
export const FIRST_RETRY_MS = 30_000;
export const MAX_RETRY_MS = 6 * 3_600_000;
export const DISABLE_AFTER_MS = 24 * 3_600_000;
/** Batches cut per destination per pass (one transaction), so one busy destination cannot starve the others. */
const BATCHES_PER_RUN = 10;
/**
 * Passes one scheduler run makes while some destination still has a backlog (its last read was
 * full): a destination keeps up with ingestion instead of moving 10 batches per 2-second period.
 */
const PASSES_PER_RUN = 200;
const DESTINATIONS_PER_RUN = 200;
const DUE_PER_RUN = 500;

/** Growth of the retry delay per failed attempt: with it the 11 waits between 12 attempts add up to
 * about 24 hours (30 s, 70 s, 166 s, … capped at 6 h), the span the delivery contract promises. */
export const RETRY_GROWTH = 2.35;

/** Delay before attempt k+1 after k failed attempts: 30 s growing ×2.35 to 6 h, ±20 % jitter. */
export function retryDelay(failedAttempts: number, random: () => number = Math.random): number {
  return retryDelayMs(failedAttempts, { baseMs: FIRST_RETRY_MS, maxMs: MAX_RETRY_MS, growth: RETRY_GROWTH, jitter: 0.2 }, random);
}

/** A 4xx other than 408 and 429 is the receiver refusing the batch itself: retrying will not help. */
export const isPermanent = (status: number | null) => status !== null && status >= 400 && status < 500 && status !== 408 && status !== 429;

export function matches(event: CanonicalEvent, kinds: string[], filters: DestinationFilters): boolean {
  if (!kinds.includes(event.kind)) return false;
  if (filters.flagKeys && !(event.flagKey !== undefined && filters.flagKeys.includes(event.flagKey))) return false;
  if (filters.experimentIds && !(event.experimentId !== undefined && filters.experimentIds.includes(event.experimentId))) return false;
  return true;
}

export interface DeliveryWorkerDeps {
  db: Kysely<Database>;
  policy: ExportPolicy;
  box: SecretBox;
  send: WebhookSender;
  now: () => number;
  resolver?: Resolver;
  /** Records the automatic disabling of a destination (authority system). */
  journal?: Pick<JournalService, 'record'>;
}

export interface DeliveryWorker {
  /** One scheduler pass; answers how many deliveries were created. */
  schedule(): Promise<number>;
  /** One attempt of one delivery, by `owner` (default: a fresh id); nothing when another owner holds it. */
  deliver(deliveryId: string, options?: { signal?: AbortSignal; owner?: string }): Promise<void>;
  /** The deliver job of this delivery went dead: the delivery becomes failed (retryable). */
  abandon(trx: Executor, deliveryId: string, job: { id: string; maxAttempts: number; error: string }): Promise<void>;
  /**
   * One page of a backfill: reads the events received after `after` (and before `receivedBefore`),
   * cuts deliveries of those stamped in [from, to), and answers where the next page starts.
   */
  backfillPage(trx: Executor, destination: destinations.DestinationRow, window: { from: number; to: number; receivedBefore: number }, after: FeedPosition): Promise<BackfillPage>;
}

export function createDeliveryWorker(deps: DeliveryWorkerDeps): DeliveryWorker {
  const iso = (ms: number) => new Date(ms).toISOString();

  async function cut(trx: Executor, destination: destinations.DestinationRow, events: CanonicalEvent[]): Promise<number> {
    const kinds = JSON.parse(destination.kinds) as string[];
    const filters = JSON.parse(destination.filters) as DestinationFilters;
    const selected = events.filter((e) => matches(e, kinds, filters));
    const size = Number(destination.batch_size);
    let created = 0;
    for (let i = 0; i < selected.length; i += size) {
      const batch = selected.slice(i, i + size);
      const times = batch.map((e) => e.timestamp).sort();
      const id = newId('dlv');
      await deliveries.insertDelivery(trx, { id, destinationId: destination.id, envId: destination.env_id, eventIds: batch.map((e) => e.id), firstEventAt: times[0]!, lastEventAt: times.at(-1)!, at: iso(deps.now()) });
      await enqueue(trx, { kind: DELIVER_JOB, payload: { deliveryId: id }, dedupeKey: `${DELIVER_JOB}:${id}` }, deps.now);
      created++;
    }
    return created;
  }

  /** One pass over one destination: how many deliveries it cut, and whether events are left to read. */
  async function scheduleDestination(destination: destinations.DestinationRow): Promise<{ created: number; more: boolean }> {
    const size = Number(destination.batch_size);
    return inTransaction(deps.db, async (trx) => {
      // Re-read under the transaction: a concurrent scheduler may have moved the position.
      const current = await trx.selectFrom('export_destinations').selectAll().where('id', '=', destination.id).executeTakeFirst();
      if (!current || current.status !== 'active') return { created: 0, more: false };
      const position = { seq: Number(current.position_seq), eventId: current.position_event_id };
      const limit = size * BATCHES_PER_RUN;
      const read = await eventsCommittedAfter(trx, current.env_id, position, limit);
      if (read.length === 0) return { created: 0, more: false };
      const last = read.at(-1)!;
      // Compare-and-swap on the position: of two schedulers reading the same events, one cuts them.
      const moved = await trx.updateTable('export_destinations').set({ position_seq: last.position.seq, position_event_id: last.position.eventId, position_received_at: Date.parse(last.receivedAt) })
        .where('id', '=', current.id).where('position_seq', '=', position.seq).where('position_event_id', '=', position.eventId).executeTakeFirst();
      if (Number(moved.numUpdatedRows) === 0) return { created: 0, more: false };
      return { created: await cut(trx, current, read), more: read.length === limit };
    });
  }

  async function recordOutcome(row: deliveries.DeliveryRow, owner: string, sent: { ok: boolean; error: DeliveryError | null }, attemptAt: number): Promise<void> {
    const attempts = Number(row.attempts) + 1;
    await inTransaction(deps.db, async (trx) => {
      const at = iso(attemptAt);
      if (sent.ok) {
        // A claim lost meanwhile (this owner stalled past it): the new owner records the outcome.
        if (!(await deliveries.recordAttempt(trx, row.id, owner, { status: 'delivered', attempts, lastAttemptAt: at, nextAttemptAt: null, lastError: null }))) return;
        await trx.updateTable('export_destinations').set({ last_attempt_at: at, last_success_at: at, consecutive_failures: 0, failing_since: null })
          .where('id', '=', row.destination_id).execute();
        return;
      }
      const final = attempts >= MAX_ATTEMPTS || isPermanent(sent.error?.status ?? null);
      const recorded = await deliveries.recordAttempt(trx, row.id, owner, {
        status: final ? 'failed' : 'pending', attempts, lastAttemptAt: at, nextAttemptAt: final ? null : iso(attemptAt + retryDelay(attempts)), lastError: sent.error,
      });
      if (!recorded) return;
      const destination = await trx.selectFrom('export_destinations').select(['failing_since', 'status', 'app_id', 'env_id', 'name']).where('id', '=', row.destination_id).executeTakeFirst();
      const failingSince = destination?.failing_since ?? at;
      const disable = destination?.status === 'active' && attemptAt - Date.parse(failingSince) >= DISABLE_AFTER_MS;
      await trx.updateTable('export_destinations')
        .set((eb) => ({ last_attempt_at: at, consecutive_failures: eb('consecutive_failures', '+', 1), last_error: JSON.stringify(sent.error), failing_since: failingSince, ...(disable ? { status: 'disabled' } : {}) }))
        .where('id', '=', row.destination_id).execute();
      if (disable && destination && deps.journal) {
        const env = await trx.selectFrom('environments').select('slug').where('id', '=', destination.env_id).executeTakeFirst();
        await deps.journal.record(trx, {
          appId: destination.app_id, env: env?.slug ?? null, operation: 'export.disable', source: 'system', resourceType: 'export_destination', resourceId: row.destination_id,
          authority: { type: 'system' }, beforeVersion: null, afterVersion: null, diff: [{ op: 'change', resourceType: 'export_destination', key: destination.name, path: 'status', before: 'active', after: 'disabled' }],
          context: { failingSince, lastError: sent.error },
        });
      }
    });
  }

  async function attempt(row: deliveries.DeliveryRow, destination: destinations.DestinationRow, events: CanonicalEvent[], signal?: AbortSignal): Promise<{ ok: boolean; error: DeliveryError | null }> {
    const url = new URL(destination.url);
    let address: string;
    try {
      address = await resolveDeliveryAddress(deps.policy, url.hostname, deps.resolver);
    } catch (err) {
      if (err instanceof AddressNotAllowedError) return { ok: false, error: { status: null, code: 'address_not_allowed', message: err.message } };
      return { ok: false, error: { status: null, code: 'dns_failed', message: (err as Error).message } };
    }
    const body = JSON.stringify({ type: 'telemetry.events.v1', deliveryId: row.id, destinationId: destination.id, appId: destination.app_id, env: destination.env, events });
    const at = new Date(deps.now());
    const signature = signingSecretsOf(destination, deps.box, at.getTime()).map((secret) => new Webhook(secret).sign(row.id, at, body)).join(' ');
    const headers = { 'webhook-id': row.id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature, 'user-agent': 'Ensign-Export/1' };
    const result = await deps.send({ url: destination.url, address }, headers, body, signal);
    if (result.status !== null && result.status >= 200 && result.status < 300) return { ok: true, error: null };
    if (result.status === null) return { ok: false, error: { status: null, code: 'connection_failed', message: result.message } };
    const code = result.status >= 300 && result.status < 400 ? 'redirect_not_followed' : 'http_error';
    return { ok: false, error: { status: result.status, code, message: result.message || `HTTP ${result.status}` } };
  }

  /** One attempt of one delivery; answers its destination when it went out (so the next may follow). */
  async function deliverOne(deliveryId: string, owner: string, jobSignal?: AbortSignal): Promise<string | null> {
    const row = await deliveries.findDeliveryById(deps.db, deliveryId);
    if (!row || (row.status !== 'pending' && row.status !== 'delivering')) return null;
    const destination = await deps.db.selectFrom('export_destinations').selectAll().where('id', '=', row.destination_id).executeTakeFirst();
    if (!destination) return null;
    const at = iso(deps.now());
    // One owner at a time: not due, or claimed by a live owner, and this attempt leaves it alone.
    if (!(await deliveries.claimDelivery(deps.db, row.id, { owner, at, until: iso(deps.now() + CLAIM_MS) }))) return null;
    if (destination.status !== 'active') {
      // Paused or disabled: the delivery waits, and goes out once the destination is active again.
      await deliveries.releaseClaim(deps.db, row.id, owner, at);
      return null;
    }
    // Only events still stored go out: erased subjects' events and expired ones are gone.
    const events = await eventsByIds(deps.db, row.env_id, JSON.parse(row.event_ids) as string[]);
    if (events.length === 0) {
      await deliveries.setStatus(deps.db, row.id, 'expired', at, { nextAttemptAt: null });
      return destination.id;
    }
    const attemptAt = deps.now();
    // The send ends well before the claim lapses, so no second owner can start while it runs.
    const deadline = AbortSignal.timeout(SEND_DEADLINE_MS);
    const sent = await attempt(row, destination, events, jobSignal ? AbortSignal.any([jobSignal, deadline]) : deadline);
    await recordOutcome(row, owner, sent, attemptAt);
    return sent.ok ? destination.id : null;
  }

  return {
    async schedule() {
      let active = await deps.db.selectFrom('export_destinations').selectAll().where('status', '=', 'active').orderBy('position_seq').limit(DESTINATIONS_PER_RUN).execute();
      let created = 0;
      // Round robin while backlogs last: every destination with events left gets another pass, so
      // a backlog drains at once and a busy destination still shares each round with the others.
      for (let pass = 0; pass < PASSES_PER_RUN && active.length > 0; pass++) {
        const behind: typeof active = [];
        for (const destination of active) {
          const result = await scheduleDestination(destination);
          created += result.created;
          if (result.more) behind.push(destination);
        }
        active = behind;
      }
      const due = await deliveries.dueDeliveries(deps.db, iso(deps.now()), DUE_PER_RUN);
      await inTransaction(deps.db, async (trx) => {
        for (const id of due) await enqueue(trx, { kind: DELIVER_JOB, payload: { deliveryId: id }, dedupeKey: `${DELIVER_JOB}:${id}` }, deps.now);
        await deliveries.expireDeliveries(trx, iso(deps.now() - RAW_RETENTION_MS), iso(deps.now()));
      });
      return created;
    },

    async deliver(deliveryId, options = {}) {
      const owner = options.owner ?? newId('own');
      let destinationId = await deliverOne(deliveryId, owner, options.signal);
      // A backlog drains through the job that is already running: after a success it claims the
      // destination's next due delivery (each still claimed on its own), saving a job per batch.
      const started = performance.now();
      for (let chained = 0; destinationId !== null && chained < CHAIN_MAX && performance.now() - started < CHAIN_MS && !options.signal?.aborted; chained++) {
        const next = await deliveries.nextDueOf(deps.db, destinationId, iso(deps.now()));
        if (!next) break;
        destinationId = await deliverOne(next, owner, options.signal);
      }
    },

    async abandon(trx, deliveryId, job) {
      const owners = Array.from({ length: job.maxAttempts }, (_, i) => `${job.id}#${i + 1}`);
      await deliveries.failAbandoned(trx, deliveryId, owners, { status: null, code: 'delivery_abandoned', message: `the deliver job failed on every attempt: ${job.error}`.slice(0, 1024) }, iso(deps.now()));
    },


    async backfillPage(trx, destination, window, after) {
      // Read by arrival order, kept by event time: late events of the window come in later pages.
      const read = await eventsAfter(trx, destination.env_id, after, BACKFILL_PAGE, window.receivedBefore);
      if (read.length === 0) return { deliveries: 0, events: 0, position: after, done: true };
      const inWindow = read.filter((e) => { const ts = Date.parse(e.timestamp); return ts >= window.from && ts < window.to; });
      const created = await cut(trx, destination, inWindow);
      return { deliveries: created, events: inWindow.length, position: read.at(-1)!.position, done: read.length < BACKFILL_PAGE };
    },
  };
}

export function registerDeliveryJobs(jobs: JobRunner, worker: DeliveryWorker): void {
  jobs.every(SCHEDULE_JOB, SCHEDULE_EVERY_MS, async () => { await worker.schedule(); });
  jobs.register<{ deliveryId: string }>(DELIVER_JOB, async (job) => worker.deliver(job.payload.deliveryId, { signal: job.signal, owner: `${job.id}#${job.attempt}` }), {
    onDead: (trx, job) => worker.abandon(trx, job.payload.deliveryId, { id: job.id, maxAttempts: DELIVER_JOB_ATTEMPTS, error: job.error }),
  });
}
