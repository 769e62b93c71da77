// `@ensign/openfeature-web`: an OpenFeature provider for @openfeature/web-sdk (the static-context
// paradigm) that evaluates the pub_ key's client projection in the page with @ensign/sdk
// (docs/openfeature.md). A context change needs no request: every evaluation is local. The last
// document is kept in localStorage, so a reload is served at once (STALE while the server is down).
import {
  ClientProviderEvents,
  ErrorCode,
  GeneralError,
  OpenFeatureEventEmitter,
  ProviderFatalError,
  type EvaluationContext,
  type JsonValue,
  type Provider,
  type ResolutionDetails,
  type TrackingEventDetails,
} from '@openfeature/web-sdk';
import {
  createClient,
  providerCore,
  type EnsignClient,
  type FlagType,
  type ProviderCore,
  type ProviderOptions,
} from '@ensign/sdk';

/** The client's options, readyTimeoutMs (default 5,000 ms) and errorGracePeriodMs (default 30,000 ms). */
export type EnsignWebProviderOptions = ProviderOptions;

export class EnsignWebProvider implements Provider {
  readonly metadata = { name: 'ensign' } as const;
  readonly runsOn = 'client' as const;
  readonly events = new OpenFeatureEventEmitter();
  /** The SDK client under the provider. */
  readonly client: EnsignClient;
  private readonly core: ProviderCore;

  constructor(options: EnsignWebProviderOptions) {
    this.client = createClient(options);
    this.core = providerCore(this.client, options, (signal) => {
      if (signal.event === 'ready') this.events.emit(ClientProviderEvents.Ready);
      else if (signal.event === 'stale') this.events.emit(ClientProviderEvents.Stale, { message: signal.message });
      else if (signal.event === 'changed')
        this.events.emit(ClientProviderEvents.ConfigurationChanged, { flagsChanged: signal.flagsChanged });
      else
        this.events.emit(ClientProviderEvents.Error, {
          message: signal.message,
          errorCode: signal.fatal ? ErrorCode.PROVIDER_FATAL : ErrorCode.GENERAL,
        });
    });
  }

  async initialize(): Promise<void> {
    await this.core.initialize({
      fatal: (message) => new ProviderFatalError(message),
      general: (message) => new GeneralError(message),
    });
  }

  /** Evaluation is local, so a new context needs nothing from the server. */
  onContextChange(): void {}

  resolveBooleanEvaluation(
    flagKey: string,
    defaultValue: boolean,
    context: EvaluationContext,
  ): ResolutionDetails<boolean> {
    return this.resolve(flagKey, defaultValue, context, 'bool');
  }

  resolveStringEvaluation(
    flagKey: string,
    defaultValue: string,
    context: EvaluationContext,
  ): ResolutionDetails<string> {
    return this.resolve(flagKey, defaultValue, context, 'string');
  }

  resolveNumberEvaluation(
    flagKey: string,
    defaultValue: number,
    context: EvaluationContext,
  ): ResolutionDetails<number> {
    return this.resolve(flagKey, defaultValue, context, 'number');
  }

  resolveObjectEvaluation<T extends JsonValue>(
    flagKey: string,
    defaultValue: T,
    context: EvaluationContext,
  ): ResolutionDetails<T> {
    return this.resolve(flagKey, defaultValue, context, 'json');
  }

  track(trackingEventName: string, context: EvaluationContext, trackingEventDetails?: TrackingEventDetails): void {
    this.client.track(trackingEventName, context as Record<string, unknown>, trackingEventDetails?.value);
  }

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
