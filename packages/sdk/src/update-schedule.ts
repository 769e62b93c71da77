// When a client asks for its document again. While the environment's change stream is open the
// client asks when a message says so and polling stops; without a stream, or while it is down, it
// polls with jitter (the interval, or the backoff and Retry-After of a failed refresh) and
// reconnects the stream with backoff. A failed refresh's wait holds every path that asks again
// (stream messages and reconnections too): a server that said Retry-After is not asked sooner.
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
  /** A connection was asked for and has not ended yet (open or not): never two at once. */
  private streamConnecting = false;
  private streamRetryMs = 2000;
  private streamFailures = 0;
  private pollTimer: Timer | undefined;
  private streamTimer: Timer | undefined;
  /** Until when (Date.now()) a failed refresh asked us to wait; 0 when nothing is held. */
  private holdUntil = 0;

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
    this.holdUntil = retryIn === undefined ? 0 : Date.now() + retryIn;
    if (retryIn === undefined && this.client.streamEnabled && this.streamUri !== null) {
      if (!this.streamConnecting && this.streamTimer === undefined) this.connectStream();
      if (this.streamOpen) return;
    }
    this.pollTimer = later(retryIn ?? jittered(this.client.pollMs()), () => void this.client.refresh());
  }

  private connectStream(): void {
    const uri = this.streamUri!;
    this.streamOpen = false;
    this.streamConnecting = true;
    // Its outcome, failure included, is handled by the chain's last step.
    void readChangeStream(this.client.connection.fetch, uri, this.client.signal, {
      onOpen: () => {
        this.streamOpen = true;
        this.streamFailures = 0;
        // The stream now tells us when to ask: polling stops (a held retry still runs).
        if (this.held()) return;
        clearTimeout(this.pollTimer);
        this.pollTimer = undefined;
      },
      onMessage: (data) => {
        // While held, the planned retry fetches the latest document anyway.
        if (data.includes('refetchEvaluation') && !this.held()) void this.client.refresh();
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
        this.streamConnecting = false;
        if (this.client.stopped()) return;
        if (!wasOpen) this.streamFailures++;
        if (error !== undefined && !wasOpen)
          this.client.report(
            new EnsignError(
              'unavailable',
              `The change stream is unavailable, polling instead: ${asEnsignError(error).message}`,
            ),
          );
        // Poll while the stream is down (a retry a failed refresh planned stays as it is); the next
        // refresh also brings a fresh stream URL (tokens expire).
        if (this.pollTimer === undefined)
          this.pollTimer = later(jittered(this.client.pollMs()), () => void this.client.refresh());
        this.reconnectIn(wasOpen ? this.streamRetryMs : backoff(this.streamFailures - 1));
      });
  }

  /** One pending reconnection at most: refresh (caught up on what the stream missed), then reopen. */
  private reconnectIn(ms: number): void {
    clearTimeout(this.streamTimer);
    this.streamTimer = later(Math.max(ms, this.holdUntil - Date.now()), () => {
      this.streamTimer = undefined;
      if (this.client.stopped()) return;
      if (this.held()) return this.reconnectIn(0);
      // A successful refresh reconnects through plan(); a failed one leaves it to the held retry's.
      void this.client.refresh().then(() => {
        if (
          !this.streamConnecting &&
          this.streamTimer === undefined &&
          !this.held() &&
          !this.client.stopped() &&
          this.streamUri !== null
        )
          this.connectStream();
      });
    });
  }

  private held(): boolean {
    return Date.now() < this.holdUntil;
  }

  /** Releases both timers (the stream itself ends with the client's abort signal). */
  stop(): void {
    clearTimeout(this.pollTimer);
    clearTimeout(this.streamTimer);
  }
}
