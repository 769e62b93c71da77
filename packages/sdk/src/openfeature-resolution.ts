// Evaluations in OpenFeature's terms, for the OpenFeature providers (@ensign/openfeature-server and
// @ensign/openfeature-web): the engine's one mapping (toOpenFeature), the flag's flat metadata, and
// the application's default on every error, as the OpenFeature specification asks.
import {
  flattenMetadata,
  toOpenFeature,
  type CoreDocument,
  type EvaluationContext,
  type FlagMetadata,
  type FlagType,
} from '@ensign/engine/core';
import type { EnsignClient } from './client.js';

export interface OpenFeatureDetails<T> {
  value: T;
  variant?: string;
  reason: string;
  errorCode?: string;
  errorMessage?: string;
  flagMetadata?: FlagMetadata;
}

/** Flat metadata by flag key, per document (a new document gets a new map). */
const metadataCache = new WeakMap<CoreDocument, Map<string, FlagMetadata | undefined>>();

function metadataOf(document: CoreDocument, key: string): FlagMetadata | undefined {
  let byKey = metadataCache.get(document);
  if (byKey === undefined) metadataCache.set(document, (byKey = new Map()));
  if (!byKey.has(key)) byKey.set(key, flattenMetadata(document.flags[key]?.metadata ?? {}));
  return byKey.get(key);
}

/** OpenFeature's context as the engine's: dates become RFC 3339 text (the engine's timestamps). */
export function engineContext(context: Readonly<Record<string, unknown>> | undefined): EvaluationContext {
  if (context === undefined) return {};
  let copy: Record<string, unknown> | null = null;
  for (const name of Object.keys(context)) {
    const value = context[name];
    const converted =
      value instanceof Date
        ? value.toISOString()
        : value !== null && typeof value === 'object' && !Array.isArray(value)
          ? engineContext(value as Record<string, unknown>)
          : value;
    if (converted !== value) (copy ??= { ...context })[name] = converted;
  }
  return (copy ?? context) as EvaluationContext;
}

export function openFeatureDetails<T>(
  client: EnsignClient,
  key: string,
  fallback: T,
  context: Readonly<Record<string, unknown>> | undefined,
  type: FlagType,
): OpenFeatureDetails<T> {
  const result = client.evaluate(key, engineContext(context), type);
  const document = client.document();
  if (result === null || document === null)
    return {
      value: fallback,
      reason: 'ERROR',
      errorCode: 'PROVIDER_NOT_READY',
      errorMessage: 'No configuration has been loaded yet.',
    };
  const resolution = toOpenFeature(result, metadataOf(document, key));
  if (resolution.reason === 'ERROR' || resolution.errorCode !== undefined) {
    return {
      value: fallback,
      reason: 'ERROR',
      errorCode: resolution.errorCode ?? 'GENERAL',
      errorMessage: resolution.errorMessage,
      flagMetadata: resolution.flagMetadata,
    };
  }
  return {
    value: resolution.value as T,
    variant: resolution.variant,
    reason: resolution.reason,
    flagMetadata: resolution.flagMetadata,
  };
}
