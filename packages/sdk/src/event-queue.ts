// The telemetry queue: events are sent to POST /api/v1/events/batch in batches of at most 100,
// from an unref'd timer or as soon as a batch is full. A per-item retryable error (rate_limited)
// sends only those items again, with the same ids, after retryAfterSeconds; a 503 or a network
// failure sends the whole batch again with exponential backoff. The queue is bounded: past
// `maxQueue` the oldest events are dropped and counted. 401/403 stops the queue for good.
import type { Connection } from './document-fetch.js';
import { EnsignError } from './errors.js';
import type { TelemetryEvent } from './telemetry-event.js';
import { backoff, later, retryAfterMs, type Timer } from './timers.js';

export const EVENTS_PATH = '/api/v1/events/batch';
export const MAX_BATCH = 100;

export interface EventQueueOptions {
  /** How long an event may wait before it is sent (default 5,000 ms). */
  flushIntervalMs: number;
  /** The most events kept waiting (default 10,000); past it the oldest are dropped. */
  maxQueue: number;
  /** Events per request, at most 100 (default 100). */
  batchSize: number;
}

export interface EventStats {
  /** Waiting to be sent. */
  queued: number;
  /** Stored by the server (accepted, or a duplicate of a retry that had landed). */
  delivered: number;
  /** Dropped because the queue was full, or left unsent when close() reached its deadline. */
  dropped: number;
  /** Refused by the server for good (permanent-error, or a whole batch refused). */
  rejected: number;
  /** Items sent again after a retryable failure. */
  retried: number;
}

interface BatchResult {
  index: number;
  status: 'accepted' | 'duplicate' | 'permanent-error' | 'retryable-error';
  retryAfterSeconds?: number;
}

export class EventQueue {
  private queue: TelemetryEvent[] = [];
  private timer: Timer | undefined;
  private timerDue = Infinity;
  private inFlight: Promise<void> | null = null;
  private failures = 0;
  /** No request before this time (backoff or Retry-After). */
  private notBefore = 0;
  private stopped = false;
  private readonly abort = new AbortController();
  readonly stats: EventStats = { queued: 0, delivered: 0, dropped: 0, rejected: 0, retried: 0 };

  constructor(
    private readonly connection: Connection,
    private readonly options: EventQueueOptions,
    private readonly sdk: { name: string; version: string },
    private readonly now: () => number,
    private readonly onError: (error: EnsignError) => void,
  ) {}

  push(event: TelemetryEvent): void {
    if (this.stopped) return;
    this.queue.push(event);
    this.bound();
    this.schedule(this.queue.length >= this.options.batchSize ? 0 : this.options.flushIntervalMs);
  }

  /** Sends everything queued now; resolves when the queue is empty or a send failed. */
  async flush(): Promise<void> {
    while (!this.stopped) {
      if (this.inFlight !== null) await this.inFlight;
      if (this.queue.length === 0 || this.now() < this.notBefore) return;
      const failuresBefore = this.failures;
      await this.sendBatch();
      if (this.failures > failuresBefore) return;
    }
  }

  /** Flushes until `deadline` (epoch ms), then abandons what is left (counted as dropped). */
  async close(deadline: number): Promise<void> {
    this.clearTimer();
    let timeout: Timer | undefined;
    // Not unref'd: the application awaits close(), which the deadline bounds.
    await Promise.race([
      this.flush(),
      new Promise<void>((resolve) => (timeout = setTimeout(resolve, Math.max(0, deadline - this.now())))),
    ]);
    clearTimeout(timeout);
    this.stopped = true;
    this.abort.abort();
    // The batch in flight at the deadline ends now (aborted) and is counted as dropped.
    await this.inFlight;
    this.stats.dropped += this.queue.length;
    this.queue = [];
    this.stats.queued = 0;
  }

  private bound(): void {
    const excess = this.queue.length - this.options.maxQueue;
    if (excess > 0) {
      this.queue.splice(0, excess);
      this.stats.dropped += excess;
    }
    this.stats.queued = this.queue.length;
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerDue = Infinity;
  }

  /** Sends within `ms` (or when the backoff ends, if later); an earlier schedule stands. */
  private schedule(ms: number): void {
    if (this.stopped || this.queue.length === 0) return;
    const due = Math.max(this.now() + ms, this.notBefore);
    if (due >= this.timerDue) return;
    this.clearTimer();
    this.timerDue = due;
    this.timer = later(due - this.now(), () => {
      this.timer = undefined;
      this.timerDue = Infinity;
      if (this.inFlight === null) void this.sendBatch();
    });
  }

  private sendBatch(): Promise<void> {
    const batch = this.queue.splice(0, this.options.batchSize);
    this.stats.queued = this.queue.length;
    this.inFlight = this.post(batch).finally(() => {
      this.inFlight = null;
      this.schedule(this.queue.length >= this.options.batchSize ? 0 : this.options.flushIntervalMs);
    });
    return this.inFlight;
  }

  private async post(batch: TelemetryEvent[]): Promise<void> {
    if (batch.length === 0) return;
    let response: Response;
    try {
      response = await this.connection.fetch(this.connection.url + EVENTS_PATH, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.connection.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ schemaVersion: 1, sdk: this.sdk, events: batch }),
        signal: this.abort.signal,
      });
    } catch (error) {
      if (this.stopped) {
        this.stats.dropped += batch.length;
        return;
      }
      this.retryLater(
        batch,
        undefined,
        new EnsignError(
          'unavailable',
          `Events could not be sent: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
      return;
    }
    const retryAfter = retryAfterMs(response.headers.get('retry-after'), this.now());
    if (response.status === 401 || response.status === 403) {
      this.stopped = true;
      this.stats.rejected += batch.length + this.queue.length;
      this.queue = [];
      this.stats.queued = 0;
      this.clearTimer();
      this.onError(
        new EnsignError(
          'unauthorized',
          `The server refused the key for events (${response.status}); no more events are sent.`,
          response.status,
        ),
      );
      return;
    }
    if (response.status === 200 || response.status === 429) {
      let results: BatchResult[];
      try {
        results = ((await response.json()) as { results: BatchResult[] }).results;
      } catch {
        this.retryLater(
          batch,
          retryAfter,
          new EnsignError('unavailable', 'The events answer could not be read.', response.status),
        );
        return;
      }
      const again: TelemetryEvent[] = [];
      let wait = 0;
      for (const result of results) {
        if (result.status === 'accepted' || result.status === 'duplicate') this.stats.delivered++;
        else if (result.status === 'permanent-error') this.stats.rejected++;
        else {
          again.push(batch[result.index]!);
          wait = Math.max(wait, (result.retryAfterSeconds ?? 1) * 1000);
        }
      }
      if (again.length === 0) {
        this.failures = 0;
        return;
      }
      this.retryLater(
        again,
        Math.max(wait, retryAfter ?? 0),
        new EnsignError(
          'throttled',
          `${again.length} events were rate limited and will be sent again.`,
          response.status,
        ),
      );
      return;
    }
    if (response.status >= 500 || response.status === 408) {
      this.retryLater(
        batch,
        retryAfter,
        new EnsignError(
          response.status === 503 ? 'throttled' : 'unavailable',
          `The events route answered ${response.status}.`,
          response.status,
        ),
      );
      return;
    }
    // 400 or 413: the batch as a whole is refused; sending it again cannot help.
    this.stats.rejected += batch.length;
    this.onError(
      new EnsignError(
        'unavailable',
        `The server refused a batch of ${batch.length} events (${response.status}).`,
        response.status,
      ),
    );
  }

  /** Puts `events` back at the front (oldest first), to be sent after the wait. */
  private retryLater(events: TelemetryEvent[], waitMs: number | undefined, error: EnsignError): void {
    this.failures++;
    this.stats.retried += events.length;
    this.queue.unshift(...events);
    this.bound();
    this.notBefore = this.now() + (waitMs ?? backoff(this.failures - 1));
    this.onError(error);
  }
}
