// When a client asks for its document again. While the environment's change stream is open the
// client asks when a message says so and polling stops; without a stream, or while it is down, it
// polls with jitter (the interval, or the backoff and Retry-After of a failed refresh) and
// reconnects the stream with backoff.
import { readChangeStream } from './change-stream.js';
import type { Connection } from './document-fetch.js';
import { asEnsignError, EnsignError } from './errors.js';
import { backoff, jittered, later, type Timer } from './timers.js';

/** What the schedule needs of its client. */
export interface ScheduledClient {
  readonly connection: Connection;
  readonly signal: AbortSignal;
  /** False when the options say to poll only. */
  readonly streamEnabled: boolean;
  refresh(): Promise<void>;
  /** Closed or fatal: no more requests. */
  stopped(): boolean;
  pollMs(): number;
  report(error: EnsignError): void;
}

export class UpdateSchedule {
  private streamUri: string | null = null;
  private streamOpen = false;
  private streamRetryMs = 2000;
  private streamFailures = 0;
  private pollTimer: Timer | undefined;
  private streamTimer: Timer | undefined;

  constructor(private readonly client: ScheduledClient) {}

  /** The change stream the last answer named (relative to the service's URL). */
  follow(streamUri: string): void {
    this.streamUri = new URL(streamUri, this.client.connection.url + '/').href;
  }

  /** After a refresh: follow the stream when there is one, otherwise poll. */
  plan(retryIn: number | undefined): void {
    if (this.client.stopped()) return;
    clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    if (retryIn === undefined && this.client.streamEnabled && this.streamUri !== null) {
      if (!this.streamOpen && this.streamTimer === undefined) this.connectStream();
      if (this.streamOpen) return;
    }
    this.pollTimer = later(retryIn ?? jittered(this.client.pollMs()), () => void this.client.refresh());
  }

  private connectStream(): void {
    const uri = this.streamUri!;
    this.streamOpen = false;
    // Its outcome, failure included, is handled by the chain's last step.
    void readChangeStream(this.client.connection.fetch, uri, this.client.signal, {
      onOpen: () => {
        this.streamOpen = true;
        this.streamFailures = 0;
        // The stream now tells us when to ask: polling stops.
        clearTimeout(this.pollTimer);
        this.pollTimer = undefined;
      },
      onMessage: (data) => {
        if (data.includes('refetchEvaluation')) void this.client.refresh();
      },
      onRetry: (ms) => (this.streamRetryMs = Math.max(500, ms)),
    })
      .then(
        () => undefined,
        (error) => error,
      )
      .then((error) => {
        const wasOpen = this.streamOpen;
        this.streamOpen = false;
        if (this.client.stopped()) return;
        if (!wasOpen) this.streamFailures++;
        if (error !== undefined && !wasOpen)
          this.client.report(
            new EnsignError(
              'unavailable',
              `The change stream is unavailable, polling instead: ${asEnsignError(error).message}`,
            ),
          );
        // Poll while the stream is down; the next refresh also brings a fresh stream URL (tokens expire).
        this.plan(undefined);
        if (this.pollTimer === undefined)
          this.pollTimer = later(jittered(this.client.pollMs()), () => void this.client.refresh());
        this.streamTimer = later(wasOpen ? this.streamRetryMs : backoff(this.streamFailures - 1), () => {
          this.streamTimer = undefined;
          void this.client.refresh().then(() => {
            if (!this.streamOpen && this.streamTimer === undefined && !this.client.stopped() && this.streamUri !== null)
              this.connectStream();
          });
        });
      });
  }

  /** Releases both timers (the stream itself ends with the client's abort signal). */
  stop(): void {
    clearTimeout(this.pollTimer);
    clearTimeout(this.streamTimer);
  }
}
