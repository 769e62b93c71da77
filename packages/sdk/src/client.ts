// The Ensign client: holds the environment's core/v1 document, compiled by @ensign/engine, and
// evaluates flags against it synchronously. It keeps the document current (the change stream, or
// jittered polling when the stream is unavailable, always with If-None-Match), keeps serving the
// last good document through failures, reports experiment exposures and outcomes, and releases
// every timer, socket and listener on close().
import {
  compileServedDocument,
  installRegexEngine,
  type CompiledFlagSet,
  type CoreDocument,
  type EvaluationContext,
  type EvaluationResult,
  type FlagType,
} from '@ensign/engine/core';
import { changedFlagKeys } from './changed-keys.js';
import { ClientTelemetry } from './client-telemetry.js';
import type { ClientEvents, ClientOptions, ClientStatus, ConfigSource, EvaluationDetail } from './client-types.js';
import { documentRefused, parseDocument, regexEngineToInstall } from './document-compile.js';
import { fetchDocument, type Connection } from './document-fetch.js';
import { Emitter } from './emitter.js';
import { asEnsignError, EnsignError } from './errors.js';
import type { EventStats } from './event-queue.js';
import { localStorageStore, storeName, type DocumentStore } from './stores.js';
import { backoff, type Timer } from './timers.js';
import { UpdateSchedule } from './update-schedule.js';
import { VERSION } from './version.js';

export const SDK_NAME = 'ensign-js';
/** The package's version (src/version.ts is written from package.json by every build). */
export const SDK_VERSION = VERSION;

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
  private readonly telemetry: ClientTelemetry | null;
  private refreshFailures = 0;
  private readonly updates: UpdateSchedule;
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
    this.updates = new UpdateSchedule({
      connection: this.connection,
      signal: this.abort.signal,
      get streamEnabled() {
        return options.stream !== false;
      },
      refresh: () => this.refresh(),
      stopped: () => this.stopped(),
      pollMs: () => this.pollMs(),
      report: (error) => this.report(error),
    });
    this.telemetry =
      options.events === false
        ? null
        : new ClientTelemetry(
            this.connection,
            options.events ?? {},
            options.sdk ?? { name: SDK_NAME, version: SDK_VERSION },
            this.now,
            (error) => this.report(error),
          );
    if (options.bootstrap !== undefined) {
      // Compiled now, so the first evaluation is served from it; a problem is reported once the
      // application had a chance to listen.
      try {
        const bootstrap = typeof options.bootstrap === 'string' ? parseDocument(options.bootstrap) : options.bootstrap;
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
    this.telemetry?.observe(result, context);
    return result;
  }

  /** Queues an `outcome` event for the subject (context.targetingKey) of a metric. */
  track(metricKey: string, context: EvaluationContext | undefined, value?: number): void {
    this.telemetry?.track(metricKey, context, value);
  }

  /** Sends the queued events now. */
  flush(): Promise<void> {
    return this.telemetry?.flush() ?? Promise.resolve();
  }

  eventStats(): EventStats {
    return { ...(this.telemetry?.stats ?? { queued: 0, delivered: 0, dropped: 0, rejected: 0, retried: 0 }) };
  }

  /** Stops updates, flushes the events (until `timeoutMs`, default 2 s) and releases every timer,
   * socket and listener. Idempotent. Evaluations keep answering from the last document. */
  close(options: { timeoutMs?: number } = {}): Promise<void> {
    this.closing ??= (async () => {
      this.state = 'closed';
      this.settleReady({ error: new EnsignError('closed', 'The client was closed.') });
      this.updates.stop();
      this.abort.abort();
      await this.telemetry?.close(this.now() + (options.timeoutMs ?? 2000));
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

  private async start(): Promise<void> {
    if (this.store !== null) {
      try {
        const text = await this.store.load(this.storeKey);
        if (text !== null && !this.abort.signal.aborted) {
          const stored = parseDocument(text);
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
      const regexEngine = regexEngineToInstall(document, this.options);
      if (regexEngine !== null) installRegexEngine(await regexEngine);
      flags = (this.options.compile ?? compileServedDocument)(document);
    } catch (error) {
      throw documentRefused(source, error);
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
      if (outcome.streamUri !== null) this.updates.follow(outcome.streamUri);
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
    this.updates.plan(retryIn);
  }

  private pollMs(): number {
    return Math.max(
      MIN_POLL_MS,
      this.options.pollIntervalMs ?? (this.current?.delivery?.pollIntervalSeconds ?? DEFAULT_POLL_MS / 1000) * 1000,
    );
  }

  /** Closed or fatal: no more requests. (A method, so TypeScript does not narrow the state across awaits.) */
  private stopped(): boolean {
    return this.state === 'closed' || this.state === 'fatal';
  }

  private fail(error: EnsignError): void {
    this.state = 'fatal';
    this.lastError = error;
    this.updates.stop();
    this.abort.abort();
    this.settleReady({ error });
    this.emitter.emit('fatal', { error });
  }
}
