// Turns accepted raw events into deliveries and sends them (issue 13). Two job kinds:
// - `exports.schedule` (recurring, every 2 s): per active destination, reads the environment's raw
//   events after the destination's position in commit order (decision 0036: nothing committed late
//   is passed over), cuts matching ones into deliveries of `batchSize`, and hands every destination
//   with something due to a worker as its `exports.deliver` job (decision 0058: one job per
//   destination, not per delivery).
// - `exports.deliver`: drains one destination's due deliveries, a few at once, oldest first. Each
//   attempt first claims its delivery in one UPDATE (decision 0037): one owner at a time, until a
//   deadline longer than any send; two workers draining one destination claim different deliveries.
//   An owner that dies leaves the claim to lapse, and the delivery is claimed again (same
//   `webhook-id`: at least once). A deliver job that goes dead makes the deliveries it held
//   `failed`, which an operator can retry.
import type { Kysely } from 'kysely';
import { performance } from 'node:perf_hooks';
import type { Database } from '../../../db/database.js';
import { inTransaction, type Executor } from '../../../db/transaction.js';
import { newId } from '../../../platform/ids.js';
import type { SecretBox } from '../../../platform/secret-box.js';
import { DEFAULT_MAX_ATTEMPTS, enqueue, retryDelayMs, type JobRunner } from '../../../jobs/index.js';
import { RAW_RETENTION_MS, telemetryReadModel, type CanonicalEvent, type FeedPosition } from '../ingestion/index.js';
import { AddressNotAllowedError, resolveDeliveryAddress, type ExportPolicy, type Resolver } from './export-policy.js';
import { SCHEDULE_JOB, type DestinationFilters } from './exports.model.js';
import * as destinations from './exports.repository.js';
import { signingSecretsOf } from './exports.service.js';
import * as deliveries from './webhook-deliveries.repository.js';
import type { DeliveryError } from './webhook-deliveries.repository.js';
import type { WebhookSender } from './webhook-sender.js';
import { signingKeyOf, signWebhook } from './webhook-signature.js';
import type { JournalService } from '../../core/journal/index.js';
import { environmentSlugOf } from '../../core/apps/index.js';
import type { BackfillPage } from './backfills.js';

const { eventsAfter, eventsByIds, eventsCommittedAfter } = telemetryReadModel;

export const DELIVER_JOB = 'exports.deliver';
export const SCHEDULE_EVERY_MS = 2_000;
export const MAX_ATTEMPTS = 12;
/** Attempts of one deliver job (the jobs default); owners of a job's claims are `<job id>#1..N`. */
const DELIVER_JOB_ATTEMPTS = DEFAULT_MAX_ATTEMPTS;
/** How long a claim lasts: longer than the longest send (SEND_DEADLINE_MS), so a live owner keeps it. */
export const CLAIM_MS = 60_000;
/** An attempt's whole send (connect, TLS, request, answer) is abandoned past this. */
export const SEND_DEADLINE_MS = 45_000;
/**
 * Deliveries of one destination in flight at once in one deliver job: a slow receiver (1.5 s per
 * delivery) still takes 4 batches per 1.5 s, and a fast one is not left waiting on our round trips.
 */
export const DRAIN_LANES = 4;
/** What one deliver job sends before it hands over to a fresh one (so other jobs get their turn). */
const DRAIN_MAX = 400;
const DRAIN_MS = 10_000;
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

/** Growth of the retry delay per failed attempt: with it the 11 waits between 12 attempts add up to
 * about 24 hours (30 s, 70 s, 166 s, … capped at 6 h), the span the delivery contract promises. */
export const RETRY_GROWTH = 2.35;

/** Delay before attempt k+1 after k failed attempts: 30 s growing ×2.35 to 6 h, ±20 % jitter. */
export function retryDelay(failedAttempts: number, random: () => number = Math.random): number {
  return retryDelayMs(
    failedAttempts,
    { baseMs: FIRST_RETRY_MS, maxMs: MAX_RETRY_MS, growth: RETRY_GROWTH, jitter: 0.2 },
    random,
  );
}

/** A 4xx other than 408 and 429 is the receiver refusing the batch itself: retrying will not help. */
export const isPermanent = (status: number | null) =>
  status !== null && status >= 400 && status < 500 && status !== 408 && status !== 429;

export function matches(event: CanonicalEvent, kinds: string[], filters: DestinationFilters): boolean {
  if (!kinds.includes(event.kind)) return false;
  if (filters.flagKeys && !(event.flagKey !== undefined && filters.flagKeys.includes(event.flagKey))) return false;
  if (
    filters.experimentIds &&
    !(event.experimentId !== undefined && filters.experimentIds.includes(event.experimentId))
  )
    return false;
  return true;
}

/**
 * A deliver job names its destination. Jobs queued by a version that queued one job per delivery
 * name the delivery instead: they drain that delivery's destination.
 */
type DeliverPayload = { destinationId: string } | { deliveryId: string };

/** Queues the destination's deliver job, unless one is queued already (a running one may be ending). */
async function handOut(db: Executor, destinationId: string, now: () => number): Promise<void> {
  await enqueue(
    db,
    { kind: DELIVER_JOB, payload: { destinationId }, dedupeKey: `${DELIVER_JOB}:${destinationId}` },
    now,
  );
}

async function destinationOf(db: Executor, payload: DeliverPayload): Promise<string | undefined> {
  if ('destinationId' in payload) return payload.destinationId;
  return (await deliveries.findDeliveryById(db, payload.deliveryId))?.destination_id;
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
  schedule(options?: { handedOut?: () => void }): Promise<number>;
  /**
   * Sends the destination's due deliveries, up to DRAIN_LANES at once, each claimed by `owner`
   * (default: a fresh id). Stops when nothing is due, when the receiver fails (the rest wait for their
   * retry), or at DRAIN_MAX / DRAIN_MS; `more` says a fresh job should carry on.
   */
  drain(
    destinationId: string,
    options?: { signal?: AbortSignal; owner?: string },
  ): Promise<{ sent: number; more: boolean }>;
  /** The deliver job of this destination went dead: the deliveries its attempts held become failed (retryable). */
  abandon(trx: Executor, destinationId: string, job: { id: string; maxAttempts: number; error: string }): Promise<void>;
  /** One `exports.deliver` job: drains its destination; a backlog left at the job's limit goes on in a fresh job. */
  deliverJob(payload: DeliverPayload, options: { signal: AbortSignal; owner: string }): Promise<void>;
  /** The `exports.deliver` job went dead. */
  deliverJobDead(
    trx: Executor,
    payload: DeliverPayload,
    job: { id: string; maxAttempts: number; error: string },
  ): Promise<void>;
  /**
   * One page of a backfill: reads the events received after `after` (and before `receivedBefore`),
   * cuts deliveries of those stamped in [from, to), and answers where the next page starts.
   */
  backfillPage(
    trx: Executor,
    destination: destinations.DestinationRow,
    window: { from: number; to: number; receivedBefore: number },
    after: FeedPosition,
  ): Promise<BackfillPage>;
}

export function createDeliveryWorker(deps: DeliveryWorkerDeps): DeliveryWorker {
  const iso = (ms: number) => new Date(ms).toISOString();

  async function cut(
    trx: Executor,
    destination: destinations.DestinationRow,
    events: CanonicalEvent[],
  ): Promise<number> {
    const kinds = JSON.parse(destination.kinds) as string[];
    const filters = JSON.parse(destination.filters) as DestinationFilters;
    const selected = events.filter((e) => matches(e, kinds, filters));
    const size = Number(destination.batch_size);
    let created = 0;
    for (let i = 0; i < selected.length; i += size) {
      const batch = selected.slice(i, i + size);
      const times = batch.map((e) => e.timestamp).sort();
      const id = newId('dlv');
      await deliveries.insertDelivery(trx, {
        id,
        destinationId: destination.id,
        envId: destination.env_id,
        eventIds: batch.map((e) => e.id),
        firstEventAt: times[0]!,
        lastEventAt: times.at(-1)!,
        at: iso(deps.now()),
      });
      created++;
    }
    if (created > 0) await handOut(trx, destination.id, deps.now);
    return created;
  }

  /** One pass over one destination: how many deliveries it cut, and whether events are left to read. */
  async function scheduleDestination(
    destination: destinations.DestinationRow,
  ): Promise<{ created: number; more: boolean }> {
    const size = Number(destination.batch_size);
    return inTransaction(deps.db, async (trx) => {
      // Re-read under the transaction: a concurrent scheduler may have moved the position.
      const current = await destinations.findDestinationById(trx, destination.id);
      if (!current || current.status !== 'active') return { created: 0, more: false };
      const position = { seq: Number(current.position_seq), eventId: current.position_event_id };
      const limit = size * BATCHES_PER_RUN;
      const read = await eventsCommittedAfter(trx, current.env_id, position, limit);
      if (read.length === 0) return { created: 0, more: false };
      const last = read.at(-1)!;
      // Compare-and-swap on the position: of two schedulers reading the same events, one cuts them.
      if (
        !(await destinations.movePosition(trx, current.id, position, {
          ...last.position,
          receivedAt: Date.parse(last.receivedAt),
        }))
      )
        return { created: 0, more: false };
      return { created: await cut(trx, current, read), more: read.length === limit };
    });
  }

  async function recordOutcome(
    row: deliveries.DeliveryRow,
    owner: string,
    sent: { ok: boolean; error: DeliveryError | null },
    attemptAt: number,
  ): Promise<void> {
    const attempts = Number(row.attempts) + 1;
    await inTransaction(deps.db, async (trx) => {
      const at = iso(attemptAt);
      if (sent.ok) {
        // A claim lost meanwhile (this owner stalled past it): the new owner records the outcome.
        if (
          !(await deliveries.recordAttempt(trx, row.id, owner, {
            status: 'delivered',
            attempts,
            lastAttemptAt: at,
            nextAttemptAt: null,
            lastError: null,
          }))
        )
          return;
        await destinations.recordSuccess(trx, row.destination_id, at);
        return;
      }
      const final = attempts >= MAX_ATTEMPTS || isPermanent(sent.error?.status ?? null);
      const recorded = await deliveries.recordAttempt(trx, row.id, owner, {
        status: final ? 'failed' : 'pending',
        attempts,
        lastAttemptAt: at,
        nextAttemptAt: final ? null : iso(attemptAt + retryDelay(attempts)),
        lastError: sent.error,
      });
      if (!recorded) return;
      const destination = await destinations.findDestinationById(trx, row.destination_id);
      const failingSince = destination?.failing_since ?? at;
      const disable = destination?.status === 'active' && attemptAt - Date.parse(failingSince) >= DISABLE_AFTER_MS;
      await destinations.recordFailure(trx, row.destination_id, { at, error: sent.error, failingSince, disable });
      if (disable && destination && deps.journal) {
        await deps.journal.record(trx, {
          appId: destination.app_id,
          env: await environmentSlugOf(trx, destination.env_id),
          operation: 'export.disable',
          source: 'system',
          resourceType: 'export_destination',
          resourceId: row.destination_id,
          authority: { type: 'system' },
          beforeVersion: null,
          afterVersion: null,
          diff: [
            {
              op: 'change',
              resourceType: 'export_destination',
              key: destination.name,
              path: 'status',
              before: 'active',
              after: 'disabled',
            },
          ],
          context: { failingSince, lastError: sent.error },
        });
      }
    });
  }

  async function attempt(
    row: deliveries.DeliveryRow,
    destination: destinations.DestinationRow,
    events: CanonicalEvent[],
    signal?: AbortSignal,
  ): Promise<{ ok: boolean; error: DeliveryError | null }> {
    const url = new URL(destination.url);
    let address: string;
    try {
      address = await resolveDeliveryAddress(deps.policy, url.hostname, deps.resolver);
    } catch (err) {
      if (err instanceof AddressNotAllowedError)
        return { ok: false, error: { status: null, code: 'address_not_allowed', message: err.message } };
      return { ok: false, error: { status: null, code: 'dns_failed', message: (err as Error).message } };
    }
    const body = JSON.stringify({
      type: 'telemetry.events.v1',
      deliveryId: row.id,
      destinationId: destination.id,
      appId: destination.app_id,
      env: destination.env,
      events,
    });
    const at = deps.now();
    const seconds = Math.floor(at / 1000);
    const signature = signingSecretsOf(destination, deps.box, at)
      .map((secret) => signWebhook(signingKeyOf(secret), row.id, seconds, body))
      .join(' ');
    const headers = {
      'webhook-id': row.id,
      'webhook-timestamp': String(seconds),
      'webhook-signature': signature,
      'user-agent': 'Ensign-Export/1',
    };
    const result = await deps.send({ url: destination.url, address }, headers, body, signal);
    if (result.status !== null && result.status >= 200 && result.status < 300) return { ok: true, error: null };
    if (result.status === null)
      return { ok: false, error: { status: null, code: 'connection_failed', message: result.message } };
    const code = result.status >= 300 && result.status < 400 ? 'redirect_not_followed' : 'http_error';
    return { ok: false, error: { status: result.status, code, message: result.message || `HTTP ${result.status}` } };
  }

  /**
   * Claims and attempts the destination's next due delivery: `none` when nothing is due or the
   * destination is no longer active, `failing` when the receiver failed in a way worth retrying
   * (the other deliveries then wait for their own retry instead of hammering it), else `done`.
   */
  async function deliverNext(
    destinationId: string,
    owner: string,
    jobSignal?: AbortSignal,
  ): Promise<'none' | 'done' | 'failing'> {
    const destination = await destinations.findDestinationById(deps.db, destinationId);
    // Paused or disabled: its deliveries wait, and go out once it is active again.
    if (!destination || destination.status !== 'active') return 'none';
    const at = iso(deps.now());
    const row = await deliveries.claimNextDue(deps.db, destinationId, { owner, at, until: iso(deps.now() + CLAIM_MS) });
    if (!row) return 'none';
    // Only events still stored go out: erased subjects' events and expired ones are gone.
    const events = await eventsByIds(deps.db, row.env_id, JSON.parse(row.event_ids) as string[]);
    if (events.length === 0) {
      await deliveries.setStatus(deps.db, row.id, 'expired', at, { nextAttemptAt: null });
      return 'done';
    }
    const attemptAt = deps.now();
    // The send ends well before the claim lapses, so no second owner can start while it runs.
    const deadline = AbortSignal.timeout(SEND_DEADLINE_MS);
    const sent = await attempt(row, destination, events, jobSignal ? AbortSignal.any([jobSignal, deadline]) : deadline);
    await recordOutcome(row, owner, sent, attemptAt);
    return sent.ok || isPermanent(sent.error?.status ?? null) ? 'done' : 'failing';
  }

  return {
    async schedule(options = {}) {
      let active = await destinations.activeDestinations(deps.db, DESTINATIONS_PER_RUN);
      let created = 0;
      // Round robin while backlogs last: every destination with events left gets another pass, so
      // a backlog drains at once and a busy destination still shares each round with the others.
      for (let pass = 0; pass < PASSES_PER_RUN && active.length > 0; pass++) {
        const behind: typeof active = [];
        for (const destination of active) {
          const result = await scheduleDestination(destination);
          // Its deliver job is queued (committed): a worker of this process may start on it while
          // the other passes go on, instead of at its next poll.
          if (result.created > 0) options.handedOut?.();
          created += result.created;
          if (result.more) behind.push(destination);
          // Let others at the database between passes: on SQLite every query of the process waits
          // for one connection, and a backlog's passes, back to back, kept workers (and requests)
          // from it until the whole backlog was cut (9 s for 200,000 events).
          await new Promise((resolve) => setImmediate(resolve));
        }
        active = behind;
      }
      // Retries that came due, deliveries whose owner died, and backlogs a worker left: each such
      // destination gets its deliver job (one per destination, deduplicated while queued).
      const due = await deliveries.destinationsWithDue(deps.db, iso(deps.now()), DESTINATIONS_PER_RUN);
      await inTransaction(deps.db, async (trx) => {
        for (const id of due) await handOut(trx, id, deps.now);
        await deliveries.expireDeliveries(trx, iso(deps.now() - RAW_RETENTION_MS), iso(deps.now()));
      });
      if (due.length > 0) options.handedOut?.();
      return created;
    },

    async drain(destinationId, options = {}) {
      const owner = options.owner ?? newId('own');
      const started = performance.now();
      let sent = 0;
      let claimed = 0;
      let stopped = false;
      let more = false;
      const lane = async () => {
        while (!stopped && !options.signal?.aborted) {
          if (claimed >= DRAIN_MAX || performance.now() - started >= DRAIN_MS) {
            more = true;
            return;
          }
          claimed++;
          const outcome = await deliverNext(destinationId, owner, options.signal);
          if (outcome === 'none') return;
          if (outcome === 'failing') stopped = true;
          else sent++;
        }
      };
      await Promise.all(Array.from({ length: DRAIN_LANES }, lane));
      return { sent, more };
    },

    async abandon(trx, destinationId, job) {
      const owners = Array.from({ length: job.maxAttempts }, (_, i) => `${job.id}#${i + 1}`);
      await deliveries.failAbandoned(
        trx,
        destinationId,
        owners,
        {
          status: null,
          code: 'delivery_abandoned',
          message: `the deliver job failed on every attempt: ${job.error}`.slice(0, 1024),
        },
        iso(deps.now()),
      );
    },

    async deliverJob(payload, options) {
      const destinationId = await destinationOf(deps.db, payload);
      if (destinationId === undefined) return;
      const { more } = await this.drain(destinationId, options);
      // Carried on at once by a fresh job (queued behind the others), not at the next schedule.
      if (more && !options.signal.aborted) await handOut(deps.db, destinationId, deps.now);
    },

    async deliverJobDead(trx, payload, job) {
      const destinationId = await destinationOf(trx, payload);
      if (destinationId !== undefined) await this.abandon(trx, destinationId, job);
    },

    async backfillPage(trx, destination, window, after) {
      // Read by arrival order, kept by event time: late events of the window come in later pages.
      const read = await eventsAfter(trx, destination.env_id, after, BACKFILL_PAGE, window.receivedBefore);
      if (read.length === 0) return { deliveries: 0, events: 0, position: after, done: true };
      const inWindow = read.filter((e) => {
        const ts = Date.parse(e.timestamp);
        return ts >= window.from && ts < window.to;
      });
      const created = await cut(trx, destination, inWindow);
      return {
        deliveries: created,
        events: inWindow.length,
        position: read.at(-1)!.position,
        done: read.length < BACKFILL_PAGE,
      };
    },
  };
}

export function registerDeliveryJobs(jobs: JobRunner, worker: DeliveryWorker): void {
  jobs.every(SCHEDULE_JOB, SCHEDULE_EVERY_MS, async () => {
    await worker.schedule({ handedOut: () => jobs.pollSoon() });
  });
  jobs.register<DeliverPayload>(
    DELIVER_JOB,
    async (job) => worker.deliverJob(job.payload, { signal: job.signal, owner: `${job.id}#${job.attempt}` }),
    {
      onDead: async (trx, job) =>
        worker.deliverJobDead(trx, job.payload, { id: job.id, maxAttempts: DELIVER_JOB_ATTEMPTS, error: job.error }),
    },
  );
}
