// `@ensign/openfeature-server`: an OpenFeature provider for @openfeature/server-sdk that evaluates
// Ensign flags in the process with @ensign/sdk (docs/openfeature.md). No request per evaluation:
// the SDK keeps the environment's document current and the engine evaluates it.
import {
  ErrorCode,
  GeneralError,
  OpenFeatureEventEmitter,
  ProviderEvents,
  ProviderFatalError,
  type EvaluationContext,
  type JsonValue,
  type Provider,
  type ResolutionDetails,
  type TrackingEventDetails,
} from '@openfeature/server-sdk';
import {
  createClient,
  providerCore,
  type EnsignClient,
  type FlagType,
  type ProviderCore,
  type ProviderOptions,
} from '@ensign/sdk';

/** The client's options, readyTimeoutMs (default 5,000 ms) and errorGracePeriodMs (default 30,000 ms). */
export type EnsignProviderOptions = ProviderOptions;

export class EnsignServerProvider implements Provider {
  readonly metadata = { name: 'ensign' } as const;
  readonly runsOn = 'server' as const;
  readonly events = new OpenFeatureEventEmitter();
  /** The SDK client under the provider (its events, eventStats(), flush()). */
  readonly client: EnsignClient;
  private readonly core: ProviderCore;

  constructor(options: EnsignProviderOptions) {
    // An application served through OpenFeature gets no persisted copy by default (a server has no
    // localStorage); pass `store: fileStore(…)` from @ensign/sdk/file-store for one.
    this.client = createClient({ store: null, ...options });
    this.core = providerCore(this.client, options, (signal) => {
      if (signal.event === 'ready') this.events.emit(ProviderEvents.Ready);
      else if (signal.event === 'stale') this.events.emit(ProviderEvents.Stale, { message: signal.message });
      else if (signal.event === 'changed')
        this.events.emit(ProviderEvents.ConfigurationChanged, { flagsChanged: signal.flagsChanged });
      else
        this.events.emit(ProviderEvents.Error, {
          message: signal.message,
          errorCode: signal.fatal ? ErrorCode.PROVIDER_FATAL : ErrorCode.GENERAL,
        });
    });
  }

  /** Resolves once a configuration is served; throws ProviderFatalError for a refused key and
   * GeneralError when none arrived within readyTimeoutMs. */
  async initialize(): Promise<void> {
    await this.core.initialize({
      fatal: (message) => new ProviderFatalError(message),
      general: (message) => new GeneralError(message),
    });
  }

  resolveBooleanEvaluation(
    flagKey: string,
    defaultValue: boolean,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<boolean>> {
    return Promise.resolve(this.resolve(flagKey, defaultValue, context, 'bool'));
  }

  resolveStringEvaluation(
    flagKey: string,
    defaultValue: string,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<string>> {
    return Promise.resolve(this.resolve(flagKey, defaultValue, context, 'string'));
  }

  resolveNumberEvaluation(
    flagKey: string,
    defaultValue: number,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<number>> {
    return Promise.resolve(this.resolve(flagKey, defaultValue, context, 'number'));
  }

  resolveObjectEvaluation<T extends JsonValue>(
    flagKey: string,
    defaultValue: T,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<T>> {
    return Promise.resolve(this.resolve(flagKey, defaultValue, context, 'json'));
  }

  /** OpenFeature's tracking API: an `outcome` event of the metric for context.targetingKey, with
   * trackingEventDetails.value as its value. */
  track(trackingEventName: string, context: EvaluationContext, trackingEventDetails?: TrackingEventDetails): void {
    this.client.track(trackingEventName, context as Record<string, unknown>, trackingEventDetails?.value);
  }

  /** Flushes the events and closes the client; idempotent. */
  onClose(): Promise<void> {
    return this.core.close();
  }

  private resolve<T>(
    flagKey: string,
    defaultValue: T,
    context: EvaluationContext,
    type: FlagType,
  ): ResolutionDetails<T> {
    return this.core.resolve(flagKey, defaultValue, context, type) as ResolutionDetails<T>;
  }
}
