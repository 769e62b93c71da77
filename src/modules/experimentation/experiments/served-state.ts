// The served half of an experiment (docs/decisions/0018): what the engine needs to assign subjects,
// kept in the environment's composite config state under `experiments`, so every change of it is a
// config version with its journal entry, and delivery, OFREP and ETags follow by themselves.
import type { ServedExperiment } from '@ensign/engine';
import type { ConfigState } from '../../core/config/index.js';
import type { ExperimentDefinition, Iteration } from './experiments.model.js';

export interface ServedParts {
  id: string;
  key: string;
  definition: ExperimentDefinition;
  iteration: Iteration;
  layer: ServedExperiment['layer'];
  holdout: ServedExperiment['holdout'];
}

export function servedExperiment(parts: ServedParts): ServedExperiment {
  const { definition, iteration } = parts;
  return {
    id: parts.id,
    key: parts.key,
    flagKey: definition.flagKey,
    state: iteration.state === 'running' ? 'running' : 'paused',
    iterationId: iteration.id,
    iterationNumber: iteration.number,
    iterationRevision: iteration.revision,
    salt: iteration.salt,
    allocation: iteration.allocation,
    variants: definition.variants,
    targeting: definition.targeting,
    layer: parts.layer,
    holdout: parts.holdout,
  };
}

/** The state with experiment `id` served as given, or no longer served (null); ids sorted so equal
 * states are equal bytes. */
export function withServed(state: ConfigState, id: string, served: ServedExperiment | null): ConfigState {
  if (served === null && !Object.prototype.hasOwnProperty.call(state.experiments ?? {}, id)) return state;
  const all: Record<string, ServedExperiment> = { ...(state.experiments ?? {}) };
  if (served === null) delete all[id];
  else all[id] = served;
  const sorted: Record<string, ServedExperiment> = {};
  for (const key of Object.keys(all).sort()) sorted[key] = all[key]!;
  return { ...state, experiments: sorted };
}

/** The running or paused experiment already on a flag, other than `exceptId`. */
export function servedOnFlag(state: ConfigState, flagKey: string, exceptId: string): ServedExperiment | undefined {
  return Object.values(state.experiments ?? {}).find((e) => e.flagKey === flagKey && e.id !== exceptId);
}
