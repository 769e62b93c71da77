// `@ensign/sdk`: the Ensign SDK for Node and browsers (docs/sdk.md). No Node module is imported
// here or below; the Node file store is the separate entry `@ensign/sdk/file-store`.
export { createClient, EnsignClient, SDK_NAME, SDK_VERSION } from './client.js';
export type { ClientEvents, ClientOptions, ClientStatus, ConfigSource, EvaluationDetail } from './client-types.js';
export { EnsignError, type EnsignErrorCode } from './errors.js';
export type { EventStats } from './event-queue.js';
export { localStorageStore, type DocumentStore, type TextStorage } from './stores.js';
export type { TelemetryEvent } from './telemetry-event.js';
export type {
  CoreDocument,
  EvaluationContext,
  EvaluationResult,
  ExperimentDetail,
  FlagType,
} from '@ensign/engine/core';
export { engineContext, openFeatureDetails, type OpenFeatureDetails } from './openfeature-resolution.js';
export { watchProviderStatus, type ProviderSignal } from './provider-status.js';
export { providerCore, type ProviderCore, type ProviderErrors, type ProviderOptions } from './openfeature-provider.js';
