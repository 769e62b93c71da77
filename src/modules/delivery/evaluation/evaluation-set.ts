// What remote evaluation needs of one environment at one config version, built once per version
// (never per request): the compiled flag set, which flags pub_ keys may see, and each flag's
// metadata as each audience may see it. Requests only look things up here.
import {
  compileFlagSet,
  ConfigInvalidError,
  flattenMetadata,
  type CompiledFlagSet,
  type FlagMetadata,
  type FlagType,
} from '@ensign/engine';
import type { EvaluationMetrics } from '../../../platform/prometheus-metrics.js';
import type { ConfigState, CurrentConfig } from '../../core/config/index.js';

/** `server`: sdk_ keys see every flag and all metadata. `client`: pub_ keys see clientEnabled flags
 * and only the metadata keys listed in privacy.clientMetadataKeys. */
export type EvaluationAudience = 'server' | 'client';

/** OpenFeature flag metadata: flat, with string, number or boolean values only. */
export type FlatMetadata = FlagMetadata;

interface FlagFacts {
  readonly type: FlagType;
  readonly clientVisible: boolean;
  /** The flag's whole metadata object (server keys on POST /api/v1/evaluate). */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** Per audience; undefined when nothing is left to show. */
  readonly flat: { readonly server?: FlatMetadata; readonly client?: FlatMetadata };
}

export interface EvaluationSet {
  readonly version: number;
  /** Null when the stored configuration cannot be compiled; `invalid` then says why. */
  readonly flags: CompiledFlagSet | null;
  readonly invalid: ConfigInvalidError | null;
  /** Flag keys an audience may evaluate, sorted (the same order in every process). */
  keysFor(audience: EvaluationAudience): readonly string[];
  /** Whether `key` exists for that audience: a hidden flag is "not found" to pub_ keys. */
  visible(key: string, audience: EvaluationAudience): boolean;
  typeOf(key: string): FlagType | undefined;
  metadataOf(key: string): Readonly<Record<string, unknown>>;
  flatMetadataOf(key: string, audience: EvaluationAudience): FlatMetadata | undefined;
  /**
   * A per-set store for serialised fragments of results, one per `space` (a module's own token).
   * Results are frozen, shared objects built at compile time, so a fragment computed once per
   * result serves every later request of this version, and the store dies with the set when the
   * version changes. Key it only by results of this set's flags: a missing flag's result is a new
   * object each time and would make the store grow.
   */
  fragments<V>(space: object): Map<object, V>;
}

const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({});

function factsOf(state: ConfigState): Map<string, FlagFacts> {
  const clientKeys = new Set(state.privacy?.clientMetadataKeys ?? []);
  const facts = new Map<string, FlagFacts>();
  for (const key of Object.keys(state.flags).sort()) {
    const flag = state.flags[key]!;
    const metadata = flag.metadata && typeof flag.metadata === 'object' ? flag.metadata : EMPTY;
    facts.set(key, {
      type: flag.type,
      clientVisible: flag.clientEnabled === true,
      metadata,
      flat: { server: flattenMetadata(metadata, null), client: flattenMetadata(metadata, clientKeys) },
    });
  }
  return facts;
}

/** The compiled set, counting each evaluation's reason (a call and an increment more per flag). */
function counted(flags: CompiledFlagSet, metrics: EvaluationMetrics): CompiledFlagSet {
  return {
    evaluate(key, context, expectedType) {
      const result = flags.evaluate(key, context, expectedType);
      metrics.evaluated(result.reason);
      return result;
    },
    evaluateAll(context) {
      const results = flags.evaluateAll(context);
      for (const result of results) metrics.evaluated(result.reason);
      return results;
    },
    has: (key) => flags.has(key),
    keys: () => flags.keys(),
  };
}

export function buildEvaluationSet(current: CurrentConfig, metrics?: EvaluationMetrics): EvaluationSet {
  const facts = factsOf(current.state);
  const serverKeys = Object.freeze([...facts.keys()]);
  const clientKeys = Object.freeze(serverKeys.filter((key) => facts.get(key)!.clientVisible));
  let flags: CompiledFlagSet | null = null;
  let invalid: ConfigInvalidError | null = null;
  try {
    flags = compileFlagSet(
      serverKeys.map((key) => current.state.flags[key]!),
      Object.values(current.state.experiments ?? {}),
    );
    if (metrics !== undefined) flags = counted(flags, metrics);
  } catch (error) {
    if (!(error instanceof ConfigInvalidError)) throw error;
    invalid = error;
  }
  // Maps, not WeakMaps: their keys live as long as the set anyway, and Map lookups are cheaper on
  // the hot path (a bulk answer makes one per flag).
  const stores = new Map<object, Map<object, unknown>>();

  return {
    version: current.version,
    flags,
    invalid,
    keysFor: (audience) => (audience === 'server' ? serverKeys : clientKeys),
    visible(key, audience) {
      const fact = facts.get(key);
      return fact !== undefined && (audience === 'server' || fact.clientVisible);
    },
    typeOf: (key) => facts.get(key)?.type,
    metadataOf: (key) => facts.get(key)?.metadata ?? EMPTY,
    flatMetadataOf: (key, audience) => facts.get(key)?.flat[audience],
    fragments<V>(space: object): Map<object, V> {
      let store = stores.get(space);
      if (store === undefined) {
        store = new Map();
        stores.set(space, store);
      }
      return store as Map<object, V>;
    },
  };
}
