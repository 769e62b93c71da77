// What other modules may read of experiments (rollouts read the experiment a plan rolls out): the
// experiment's definition in the domain's types, never its row or its JSON. A change to how
// experiments store their definition changes this file and nothing outside the module.
import type { Variant } from '@ensign/engine';
import type { Executor } from '../../../db/transaction.js';
import type { ExperimentState } from './experiments.model.js';
import { currentIteration, findExperiment, listExperiments } from './experiments.repository.js';

/** An experiment as another module reads it. */
export interface ExperimentView {
  id: string;
  state: ExperimentState;
  flagKey: string;
  /** The first is the control. */
  variants: Variant[];
}

/** The newest revision of an experiment's newest iteration. */
export interface IterationRef {
  id: string;
  revision: number;
}

export interface ExperimentsReadModel {
  /** The experiment of an environment, read in `executor`; null when there is none. */
  experiment(executor: Executor, envId: string, experimentId: string): Promise<ExperimentView | null>;
  /** Its current iteration; null before it first started. */
  currentIteration(executor: Executor, experimentId: string): Promise<IterationRef | null>;
  /** Ids of the running or paused experiments of an environment that name a holdout (holdouts ask). */
  usingHoldout(executor: Executor, envId: string, holdoutId: string): Promise<string[]>;
}

export const experimentsReadModel: ExperimentsReadModel = {
  async experiment(executor, envId, experimentId) {
    const found = await findExperiment(executor, envId, experimentId);
    return found
      ? { id: found.id, state: found.state, flagKey: found.definition.flagKey, variants: found.definition.variants }
      : null;
  },
  async currentIteration(executor, experimentId) {
    const iteration = await currentIteration(executor, experimentId);
    return iteration ? { id: iteration.id, revision: iteration.revision } : null;
  },
  async usingHoldout(executor, envId, holdoutId) {
    const active = await listExperiments(executor, envId, ['running', 'paused']);
    return active.filter((e) => e.definition.holdoutId === holdoutId).map((e) => e.id);
  },
};
