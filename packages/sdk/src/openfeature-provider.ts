// What the two OpenFeature providers (@ensign/openfeature-server and -web) share around the client:
// their options, waiting for the first configuration, the status signals, closing once, and
// resolving a flag. Each provider keeps only what its OpenFeature SDK types differently (its event
// names, its error classes, sync or async resolution); this package depends on neither SDK.
import type { EnsignClient } from './client.js';
import type { ClientOptions } from './client-types.js';
import type { FlagType } from '@ensign/engine/core';
import { EnsignError } from './errors.js';
import { openFeatureDetails, type OpenFeatureDetails } from './openfeature-resolution.js';
import { watchProviderStatus, type ProviderSignal } from './provider-status.js';

export interface ProviderOptions extends ClientOptions {
  /** How long initialize() waits for a first configuration (default 5,000 ms). */
  readyTimeoutMs?: number;
  /** How long the provider stays STALE before it reports ERROR (default 30,000 ms). */
  errorGracePeriodMs?: number;
}

const DEFAULT_ERROR_GRACE_PERIOD_MS = 30_000;

/** The OpenFeature error a provider's initialize() throws: fatal for a refused key, general otherwise. */
export interface ProviderErrors {
  fatal(message: string): Error;
  general(message: string): Error;
}

export interface ProviderCore {
  /** Resolves once a configuration is served; throws `errors.fatal` for a refused key and
   * `errors.general` when none arrived within readyTimeoutMs. */
  initialize(errors: ProviderErrors): Promise<void>;
  resolve<T>(flagKey: string, defaultValue: T, context: object, type: FlagType): OpenFeatureDetails<T>;
  /** Stops the status signals and closes the client (flushing its events); idempotent. */
  close(): Promise<void>;
}

export function providerCore(
  client: EnsignClient,
  options: ProviderOptions,
  signal: (s: ProviderSignal) => void,
): ProviderCore {
  const watcher = watchProviderStatus(client, signal, options.errorGracePeriodMs ?? DEFAULT_ERROR_GRACE_PERIOD_MS);
  let closed: Promise<void> | null = null;
  return {
    async initialize(errors) {
      try {
        await client.ready({ timeoutMs: options.readyTimeoutMs });
      } catch (error) {
        if (error instanceof EnsignError && error.fatal) throw errors.fatal(error.message);
        throw errors.general(error instanceof Error ? error.message : String(error));
      }
      watcher.started();
    },
    resolve(flagKey, defaultValue, context, type) {
      return openFeatureDetails(client, flagKey, defaultValue, context as Record<string, unknown>, type);
    },
    close() {
      closed ??= (async () => {
        watcher.stop();
        await client.close();
      })();
      return closed;
    },
  };
}
