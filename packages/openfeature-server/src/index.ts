// `@ensign/openfeature-server`: an OpenFeature provider for @openfeature/server-sdk that evaluates
// Ensign flags in the process with @ensign/sdk (docs/openfeature.md). No request per evaluation:
// the SDK keeps the environment's document current and the engine evaluates it.
import {
  ErrorCode, GeneralError, OpenFeatureEventEmitter, ProviderEvents, ProviderFatalError,
  type EvaluationContext, type JsonValue, type Provider, type ResolutionDetails, type TrackingEventDetails,
} from '@openfeature/server-sdk';
import { createClient, EnsignError, openFeatureDetails, watchProviderStatus, type ClientOptions, type EnsignClient, type FlagType } from '@ensign/sdk';

export interface EnsignProviderOptions extends ClientOptions {
  /** How long initialize() waits for a first configuration (default 5,000 ms). */
  readyTimeoutMs?: number;
  /** How long the provider stays STALE before it reports ERROR (default 30,000 ms). */
  errorGracePeriodMs?: number;
}

export class EnsignServerProvider implements Provider {
  readonly metadata = { name: 'ensign' } as const;
  readonly runsOn = 'server' as const;
  readonly events = new OpenFeatureEventEmitter();
  /** The SDK client under the provider (its events, eventStats(), flush()). */
  readonly client: EnsignClient;
  private readonly watcher: ReturnType<typeof watchProviderStatus>;
  private closed: Promise<void> | null = null;

  constructor(private readonly options: EnsignProviderOptions) {
    // An application served through OpenFeature gets no persisted copy by default (a server has no
    // localStorage); pass `store: fileStore(…)` from @ensign/sdk/file-store for one.
    this.client = createClient({ store: null, ...options });
    this.watcher = watchProviderStatus(this.client, (signal) => {
      if (signal.event === 'ready') this.events.emit(ProviderEvents.Ready);
      else if (signal.event === 'stale') this.events.emit(ProviderEvents.Stale, { message: signal.message });
      else if (signal.event === 'changed') this.events.emit(ProviderEvents.ConfigurationChanged, { flagsChanged: signal.flagsChanged });
      else this.events.emit(ProviderEvents.Error, { message: signal.message, errorCode: signal.fatal ? ErrorCode.PROVIDER_FATAL : ErrorCode.GENERAL });
    }, options.errorGracePeriodMs ?? 30_000);
  }

  /** Resolves once a configuration is served; throws ProviderFatalError for a refused key and
   * GeneralError when none arrived within readyTimeoutMs. */
  async initialize(): Promise<void> {
    try {
      await this.client.ready({ timeoutMs: this.options.readyTimeoutMs });
    } catch (error) {
      if (error instanceof EnsignError && error.fatal) throw new ProviderFatalError(error.message);
      throw new GeneralError(error instanceof Error ? error.message : String(error));
    }
    this.watcher.started();
  }

  resolveBooleanEvaluation(flagKey: string, defaultValue: boolean, context: EvaluationContext): Promise<ResolutionDetails<boolean>> {
    return Promise.resolve(this.resolve(flagKey, defaultValue, context, 'bool'));
  }

  resolveStringEvaluation(flagKey: string, defaultValue: string, context: EvaluationContext): Promise<ResolutionDetails<string>> {
    return Promise.resolve(this.resolve(flagKey, defaultValue, context, 'string'));
  }

  resolveNumberEvaluation(flagKey: string, defaultValue: number, context: EvaluationContext): Promise<ResolutionDetails<number>> {
    return Promise.resolve(this.resolve(flagKey, defaultValue, context, 'number'));
  }

  resolveObjectEvaluation<T extends JsonValue>(flagKey: string, defaultValue: T, context: EvaluationContext): Promise<ResolutionDetails<T>> {
    return Promise.resolve(this.resolve(flagKey, defaultValue, context, 'json'));
  }

  /** OpenFeature's tracking API: an `outcome` event of the metric for context.targetingKey, with
   * trackingEventDetails.value as its value. */
  track(trackingEventName: string, context: EvaluationContext, trackingEventDetails?: TrackingEventDetails): void {
    this.client.track(trackingEventName, context as Record<string, unknown>, trackingEventDetails?.value);
  }

  /** Flushes the events and closes the client; idempotent. */
  onClose(): Promise<void> {
    this.closed ??= (async () => {
      this.watcher.stop();
      await this.client.close();
    })();
    return this.closed;
  }

  private resolve<T>(flagKey: string, defaultValue: T, context: EvaluationContext, type: FlagType): ResolutionDetails<T> {
    return openFeatureDetails(this.client, flagKey, defaultValue, context as Record<string, unknown>, type) as ResolutionDetails<T>;
  }
}
