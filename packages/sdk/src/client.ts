// The Ensign client: holds the environment's core/v1 document, compiled by @ensign/engine, and
// evaluates flags against it synchronously. It keeps the document current (the change stream, or
// jittered polling when the stream is unavailable, always with If-None-Match), keeps serving the
// last good document through failures, reports experiment exposures and outcomes, and releases
// every timer, socket and listener on close().
import {
  compileServedDocument,
  installedRegexEngine,
  installRegexEngine,
  needsRegexEngine,
  type CompiledFlagSet,
  type CoreDocument,
  type EvaluationContext,
  type EvaluationResult,
  type FlagType,
  type RegexEngine,
} from '@ensign/engine/core';
import { readChangeStream } from './change-stream.js';
import { changedFlagKeys } from './changed-keys.js';
import { fetchDocument, type Connection } from './document-fetch.js';
import { Emitter } from './emitter.js';
import { asEnsignError, EnsignError } from './errors.js';
import { EventQueue, MAX_BATCH, type EventStats } from './event-queue.js';
import { ExposureWindow } from './exposure-window.js';
import { localStorageStore, storeName, type DocumentStore } from './stores.js';
import { eventId, type TelemetryEvent } from './telemetry-event.js';
import { backoff, jittered, later, type Timer } from './timers.js';
import { VERSION } from './version.js';

export const SDK_NAME = 'ensign-js';
/** The package's version (src/version.ts is written from package.json by every build). */
export const SDK_VERSION = VERSION;

/** Where the configuration being served came from. */
export type ConfigSource = 'network' | 'persisted' | 'bootstrap';

export type ClientStatus = 'starting' | 'ready' | 'stale' | 'fatal' | 'closed';

export interface ClientOptions {
  /** The service's base URL (https://flags.example.com). */
  url: string;
  /** An environment key: sdk_ (server document) or pub_ (the client projection, for browsers). */
  key: string;
  /** A core/v1 document (object or JSON text) to serve until the network answers. */
  bootstrap?: CoreDocument | string;
  /** Keeps the last good document between runs. Default: localStorage where there is one. */
  store?: DocumentStore | null;
  /** Follow the change stream (default true); false polls only. */
  stream?: boolean;
  /** Polling interval; default the document's delivery.pollIntervalSeconds. */
  pollIntervalMs?: number;
  /** Telemetry; false sends nothing (no exposures, track() does nothing). */
  events?:
    | false
    | {
        flushIntervalMs?: number;
        maxQueue?: number;
        batchSize?: number;
        /** One exposure per subject, flag, iteration and variant within this window (default 1 hour). */
        exposureWindowMs?: number;
        /** Fraction (0..1) of evaluations reported as `decision` events (default 0: none). */
        decisionSampleRate?: number;
      };
  /** The regex engine for flags that use `matches`: loaded on first need (default re2js, a lazy
   * import of @ensign/engine/re2, its own chunk in a bundle). */
  regexEngine?: () => Promise<RegexEngine>;
  /** How documents are compiled. Default compileServedDocument: the envelope and each flag's shape
   * are checked, the values not (the server validated them when they were written; decision 0056).
   * Pass compileDocument from @ensign/engine/core to validate every document in full, e.g. a
   * hand-written bootstrap (about 4 KB more, gzipped, in a browser bundle). */
  compile?: (document: CoreDocument) => CompiledFlagSet;
  /** For tests and unusual runtimes. */
  fetch?: typeof fetch;
  now?: () => number;
  sdk?: { name: string; version: string };
}

export interface EvaluationDetail<T> {
  readonly key: string;
  /** The flag's value, or the default given when `reason` is ERROR. */
  readonly value: T;
  readonly variant?: string;
  readonly reason: EvaluationResult['reason'];
  readonly ruleId?: string;
  readonly errorCode?: EvaluationResult['errorCode'];
  readonly errorMessage?: string;
  readonly fallbackClass?: EvaluationResult['fallbackClass'];
  readonly experiment?: EvaluationResult['experiment'];
}

export interface ClientEvents {
  /** The first configuration is being served (and again when a stale client is fresh again). */
  ready: { source: ConfigSource; version: number };
  /** A new document: the keys of the flags whose definition (or experiment) changed. */
  changed: { keys: string[]; version: number };
  /** A refresh failed; the last good document is still served. */
  stale: { error: EnsignError };
  /** A problem worth knowing (a failed refresh, events that could not be sent). */
  error: { error: EnsignError };
  /** The key was refused: the client stops. */
  fatal: { error: EnsignError };
}

const FLAG_TYPE_OF: Record<string, FlagType> = { boolean: 'bool', string: 'string', number: 'number' };
const DEFAULT_POLL_MS = 60_000;
const MIN_POLL_MS = 1000;

type ReadyOutcome = { source: ConfigSource } | { error: EnsignError };

export function createClient(options: ClientOptions): EnsignClient {
  return new EnsignClient(options);
}

export class EnsignClient {
  private flags: CompiledFlagSet | null = null;
  private current: CoreDocument | null = null;
  private etag: string | null = null;
  private source: ConfigSource | null = null;
  private state: ClientStatus = 'starting';
  private readonly connection: Connection;
  private readonly emitter = new Emitter<ClientEvents>();
  private readonly abort = new AbortController();
  private readonly now: () => number;
  private readonly store: DocumentStore | null;
  private readonly storeKey: string;
  private readonly events: EventQueue | null;
  private readonly exposures: ExposureWindow;
  private readonly decisionRate: number;
  private streamUri: string | null = null;
  private streamOpen = false;
  private streamRetryMs = 2000;
  private streamFailures = 0;
  private refreshFailures = 0;
  private pollTimer: Timer | undefined;
  private streamTimer: Timer | undefined;
  private refreshing: Promise<void> | null = null;
  private refreshAgain = false;
  private settleReady!: (outcome: ReadyOutcome) => void;
  private readonly readyOutcome: Promise<ReadyOutcome>;
  private closing: Promise<void> | null = null;

  constructor(private readonly options: ClientOptions) {
    if (typeof options.url !== 'string' || !/^https?:\/\//.test(options.url))
      throw new TypeError("createClient: url must be the service's http(s) base URL");
    if (typeof options.key !== 'string' || !/^(sdk|pub)_/.test(options.key))
      throw new TypeError('createClient: key must be an environment key (sdk_… or pub_…)');
    const fetchImpl = options.fetch ?? globalThis.fetch;
    this.connection = {
      url: options.url.replace(/\/+$/, ''),
      key: options.key,
      fetch: (input, init) => fetchImpl(input, init),
    };
    this.now = options.now ?? Date.now;
    this.store = options.store === undefined ? localStorageStore() : options.store;
    this.storeKey = storeName(this.connection.url, options.key);
    this.readyOutcome = new Promise((resolve) => (this.settleReady = resolve));
    const events = options.events === false ? null : (options.events ?? {});
    this.events =
      events === null
        ? null
        : new EventQueue(
            this.connection,
            {
              flushIntervalMs: events.flushIntervalMs ?? 5000,
              maxQueue: events.maxQueue ?? 10_000,
              batchSize: Math.min(MAX_BATCH, Math.max(1, events.batchSize ?? MAX_BATCH)),
            },
            options.sdk ?? { name: SDK_NAME, version: SDK_VERSION },
            this.now,
            (error) => this.report(error),
          );
    this.exposures = new ExposureWindow(events?.exposureWindowMs ?? 3_600_000);
    this.decisionRate = events?.decisionSampleRate ?? 0;
    if (options.bootstrap !== undefined) {
      // Compiled now, so the first evaluation is served from it; a problem is reported once the
      // application had a chance to listen.
      try {
        const bootstrap = typeof options.bootstrap === 'string' ? parse(options.bootstrap) : options.bootstrap;
        this.adopt(bootstrap, 'bootstrap', null).catch((error) => this.report(asEnsignError(error)));
      } catch (error) {
        queueMicrotask(() => this.report(asEnsignError(error)));
      }
    }
    void this.start();
  }

  get status(): ClientStatus {
    return this.state;
  }

  /** The config version being served, or null before the first document. */
  get version(): number | null {
    return this.current?.version ?? null;
  }

  /** The document being served (do not mutate it). */
  document(): CoreDocument | null {
    return this.current;
  }

  /** Resolves with where the configuration came from as soon as one is served; rejects with an
   * EnsignError: `unauthorized` (fatal), `timeout` (default 5 s) or `closed`. Never hangs. */
  async ready(options: { timeoutMs?: number } = {}): Promise<ConfigSource> {
    let timer: Timer | undefined;
    const timeoutMs = options.timeoutMs ?? 5000;
    const outcome = await Promise.race([
      this.readyOutcome,
      // Not unref'd: an application awaiting ready() is waiting for this answer, bounded by the timeout.
      new Promise<ReadyOutcome>(
        (resolve) =>
          (timer = setTimeout(
            () =>
              resolve({
                error: new EnsignError(
                  'timeout',
                  `No configuration within ${timeoutMs} ms${this.lastError ? ` (last problem: ${this.lastError.message})` : ''}.`,
                ),
              }),
            timeoutMs,
          )),
      ),
    ]);
    clearTimeout(timer);
    if ('error' in outcome) throw outcome.error;
    return outcome.source;
  }

  on<K extends keyof ClientEvents>(event: K, listener: (payload: ClientEvents[K]) => void): () => void {
    return this.emitter.on(event, listener);
  }

  off<K extends keyof ClientEvents>(event: K, listener: (payload: ClientEvents[K]) => void): void {
    this.emitter.off(event, listener);
  }

  boolean(key: string, context: EvaluationContext | undefined, fallback: boolean): boolean {
    const result = this.evaluate(key, context, 'bool');
    return result === null || result.reason === 'ERROR' ? fallback : (result.value as boolean);
  }

  string(key: string, context: EvaluationContext | undefined, fallback: string): string {
    const result = this.evaluate(key, context, 'string');
    return result === null || result.reason === 'ERROR' ? fallback : (result.value as string);
  }

  number(key: string, context: EvaluationContext | undefined, fallback: number): number {
    const result = this.evaluate(key, context, 'number');
    return result === null || result.reason === 'ERROR' ? fallback : (result.value as number);
  }

  json<T = unknown>(key: string, context: EvaluationContext | undefined, fallback: T): T {
    const result = this.evaluate(key, context, 'json');
    return result === null || result.reason === 'ERROR' ? fallback : (result.value as T);
  }

  /** The whole answer: value (the default on ERROR), variant, reason, rule, error and experiment
   * assignment. The flag type is the default's (boolean, string, number; anything else json)
   * unless given. */
  detail<T>(
    key: string,
    context: EvaluationContext | undefined,
    fallback: T,
    type: FlagType = FLAG_TYPE_OF[typeof fallback] ?? 'json',
  ): EvaluationDetail<T> {
    const result = this.evaluate(key, context, type);
    if (result === null)
      return {
        key,
        value: fallback,
        reason: 'ERROR',
        errorCode: 'PROVIDER_NOT_READY',
        errorMessage: 'No configuration has been loaded yet.',
      };
    return result.reason === 'ERROR' ? { ...result, value: fallback } : (result as EvaluationDetail<T>);
  }

  /** The engine's result itself (frozen and shared: do not mutate), or null before the first
   * document. Exposures are reported as for every evaluation. */
  evaluate(key: string, context?: EvaluationContext, type?: FlagType): EvaluationResult | null {
    const flags = this.flags;
    if (flags === null) return null;
    const result = flags.evaluate(key, context, type);
    if (this.events !== null) {
      if (result.experiment?.inExperiment === true) this.expose(result, context);
      if (this.decisionRate > 0 && Math.random() < this.decisionRate) this.decide(result, context);
    }
    return result;
  }

  /** Queues an `outcome` event for the subject (context.targetingKey) of a metric. */
  track(metricKey: string, context: EvaluationContext | undefined, value?: number): void {
    const subject = context?.targetingKey;
    if (
      this.events === null ||
      typeof subject !== 'string' ||
      subject === '' ||
      typeof metricKey !== 'string' ||
      metricKey === ''
    )
      return;
    const event: TelemetryEvent = {
      id: eventId(),
      kind: 'outcome',
      timestamp: new Date(this.now()).toISOString(),
      targetingKey: subject,
      metricKey,
    };
    this.events.push(typeof value === 'number' && Number.isFinite(value) ? { ...event, metricValue: value } : event);
  }

  /** Sends the queued events now. */
  flush(): Promise<void> {
    return this.events?.flush() ?? Promise.resolve();
  }

  eventStats(): EventStats {
    return { ...(this.events?.stats ?? { queued: 0, delivered: 0, dropped: 0, rejected: 0, retried: 0 }) };
  }

  /** Stops updates, flushes the events (until `timeoutMs`, default 2 s) and releases every timer,
   * socket and listener. Idempotent. Evaluations keep answering from the last document. */
  close(options: { timeoutMs?: number } = {}): Promise<void> {
    this.closing ??= (async () => {
      this.state = 'closed';
      this.settleReady({ error: new EnsignError('closed', 'The client was closed.') });
      clearTimeout(this.pollTimer);
      clearTimeout(this.streamTimer);
      this.abort.abort();
      await this.events?.close(this.now() + (options.timeoutMs ?? 2000));
      this.emitter.clear();
    })();
    return this.closing;
  }

  private lastError: EnsignError | null = null;

  private report(error: EnsignError): void {
    this.lastError = error;
    if (this.state === 'closed') return;
    this.emitter.emit('error', { error });
  }

  private expose(result: EvaluationResult, context: EvaluationContext | undefined): void {
    const subject = context?.targetingKey;
    const experiment = result.experiment!;
    if (typeof subject !== 'string' || subject === '') return;
    const variant = experiment.variant ?? result.variant;
    const now = this.now();
    if (!this.exposures.first(`${subject}\n${result.key}\n${experiment.iterationId}\n${variant}`, now)) return;
    this.events!.push({
      id: eventId(),
      kind: 'exposure',
      timestamp: new Date(now).toISOString(),
      targetingKey: subject,
      flagKey: result.key,
      variant,
      reason: result.reason,
      experimentId: experiment.id,
      iterationId: experiment.iterationId,
      iterationRevision: experiment.iterationRevision,
    });
  }

  private decide(result: EvaluationResult, context: EvaluationContext | undefined): void {
    const subject = context?.targetingKey;
    this.events!.push({
      id: eventId(),
      kind: 'decision',
      timestamp: new Date(this.now()).toISOString(),
      flagKey: result.key,
      reason: result.reason,
      ...(typeof subject === 'string' && subject !== '' ? { targetingKey: subject } : {}),
      ...(result.variant !== undefined ? { variant: result.variant } : {}),
    });
  }

  private async start(): Promise<void> {
    if (this.store !== null) {
      try {
        const text = await this.store.load(this.storeKey);
        if (text !== null && !this.abort.signal.aborted) {
          const stored = parse(text);
          if (this.current === null || stored.version > this.current.version)
            await this.adopt(stored, 'persisted', null);
        }
      } catch (error) {
        this.report(
          new EnsignError('invalid_document', `The persisted document was ignored: ${asEnsignError(error).message}`),
        );
      }
    }
    await this.refresh();
  }

  /** Compiles and serves a document; the regex engine is loaded first when it needs one. */
  private async adopt(document: CoreDocument, source: ConfigSource, text: string | null): Promise<void> {
    let flags: CompiledFlagSet;
    try {
      if (
        installedRegexEngine() === null &&
        document?.flags &&
        needsRegexEngine(Object.values(document.flags) as never, document.experiments ?? [])
      ) {
        installRegexEngine(await (this.options.regexEngine ?? loadRe2)());
      }
      flags = (this.options.compile ?? compileServedDocument)(document);
    } catch (error) {
      throw new EnsignError(
        'invalid_document',
        `The ${source} document was refused: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (this.state === 'closed') return;
    const previous = this.current;
    this.flags = flags;
    this.current = document;
    this.etag = document.delivery?.etag ?? this.etag;
    if (text !== null && this.store !== null) {
      try {
        await this.store.save(this.storeKey, text);
      } catch (error) {
        this.report(
          new EnsignError('unavailable', `The document could not be persisted: ${asEnsignError(error).message}`),
        );
      }
    }
    if (this.source === null) {
      this.source = source;
      this.state = 'ready';
      this.settleReady({ source });
      this.emitter.emit('ready', { source, version: document.version });
    } else if (previous !== null) {
      const keys = changedFlagKeys(previous, document);
      if (keys.length > 0 || previous.version !== document.version)
        this.emitter.emit('changed', { keys, version: document.version });
    }
  }

  /** One request for the document (coalesced: a request asked for while one runs follows it). */
  private refresh(): Promise<void> {
    if (this.refreshing !== null) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        await this.refreshOnce();
      } while (this.refreshAgain && !this.stopped());
    })().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  private async refreshOnce(): Promise<void> {
    if (this.stopped()) return;
    const outcome = await fetchDocument(this.connection, this.etag, this.abort.signal, this.now());
    if (this.stopped()) return;
    let retryIn: number | undefined;
    if (outcome.kind === 'failed') {
      if (outcome.error.fatal) return this.fail(outcome.error);
      this.refreshFailures++;
      this.report(outcome.error);
      if (this.source !== null && this.state !== 'stale') {
        this.state = 'stale';
        this.emitter.emit('stale', { error: outcome.error });
      }
      retryIn = Math.max(outcome.retryAfterMs ?? 0, backoff(this.refreshFailures - 1, this.pollMs()));
    } else {
      this.refreshFailures = 0;
      if (outcome.streamUri !== null) this.streamUri = new URL(outcome.streamUri, this.connection.url + '/').href;
      if (outcome.kind === 'document') {
        try {
          await this.adopt(outcome.document, 'network', outcome.text);
          this.etag = outcome.etag ?? this.etag;
        } catch (error) {
          this.report(asEnsignError(error));
        }
      }
      if (this.state === 'stale') {
        this.state = 'ready';
        this.emitter.emit('ready', { source: 'network', version: this.current!.version });
      }
    }
    this.plan(retryIn);
  }

  /** After a refresh: follow the stream when there is one, otherwise poll. */
  private plan(retryIn: number | undefined): void {
    if (this.stopped()) return;
    clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    if (retryIn === undefined && this.options.stream !== false && this.streamUri !== null) {
      if (!this.streamOpen && this.streamTimer === undefined) this.connectStream();
      if (this.streamOpen) return;
    }
    this.pollTimer = later(retryIn ?? jittered(this.pollMs()), () => void this.refresh());
  }

  private pollMs(): number {
    return Math.max(
      MIN_POLL_MS,
      this.options.pollIntervalMs ?? (this.current?.delivery?.pollIntervalSeconds ?? DEFAULT_POLL_MS / 1000) * 1000,
    );
  }

  private connectStream(): void {
    const uri = this.streamUri!;
    this.streamOpen = false;
    readChangeStream(this.connection.fetch, uri, this.abort.signal, {
      onOpen: () => {
        this.streamOpen = true;
        this.streamFailures = 0;
        // The stream now tells us when to ask: polling stops.
        clearTimeout(this.pollTimer);
        this.pollTimer = undefined;
      },
      onMessage: (data) => {
        if (data.includes('refetchEvaluation')) void this.refresh();
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
        if (this.stopped()) return;
        if (!wasOpen) this.streamFailures++;
        if (error !== undefined && !wasOpen)
          this.report(
            new EnsignError(
              'unavailable',
              `The change stream is unavailable, polling instead: ${asEnsignError(error).message}`,
            ),
          );
        // Poll while the stream is down; the next refresh also brings a fresh stream URL (tokens expire).
        this.plan(undefined);
        if (this.pollTimer === undefined) this.pollTimer = later(jittered(this.pollMs()), () => void this.refresh());
        this.streamTimer = later(wasOpen ? this.streamRetryMs : backoff(this.streamFailures - 1), () => {
          this.streamTimer = undefined;
          void this.refresh().then(() => {
            if (!this.streamOpen && this.streamTimer === undefined && !this.stopped() && this.streamUri !== null)
              this.connectStream();
          });
        });
      });
  }

  /** Closed or fatal: no more requests. (A method, so TypeScript does not narrow the state across awaits.) */
  private stopped(): boolean {
    return this.state === 'closed' || this.state === 'fatal';
  }

  private fail(error: EnsignError): void {
    this.state = 'fatal';
    this.lastError = error;
    clearTimeout(this.pollTimer);
    clearTimeout(this.streamTimer);
    this.abort.abort();
    this.settleReady({ error });
    this.emitter.emit('fatal', { error });
  }
}

function parse(text: string): CoreDocument {
  try {
    return JSON.parse(text) as CoreDocument;
  } catch (error) {
    throw new EnsignError(
      'invalid_document',
      `The document is not JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

async function loadRe2(): Promise<RegexEngine> {
  return (await import('@ensign/engine/re2')).re2RegexEngine;
}
