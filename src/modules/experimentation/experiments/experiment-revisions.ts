// What the experiment use cases share: experiments.service.ts (definitions: create, read, patch) and
// experiment-lifecycle.service.ts (the moves of a started experiment) read an experiment as the API
// shows it and write its next revision through the same compare-and-swap; a move's revision also
// changes what the environment serves, written through the config mutator in the same transaction.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import type { Executor } from '../../../db/transaction.js';
import type { ServedExperiment } from '@ensign/engine';
import type { AppAccess, Permission } from '../../../platform/app-access.js';
import { notFound, versionConflict } from '../../../platform/errors.js';
import type { Principal } from '../../../platform/principal.js';
import type { HoldoutsService } from '../holdouts/index.js';
import { authorityOf, definitionDiff, type JournalService, type JournalSource } from '../../core/journal/index.js';
import type { LayersService } from '../layers/index.js';
import type { MetricsService } from '../experiment-metrics/index.js';
import {
  clearanceContext,
  resolveTarget,
  type Clearance,
  type ConfigMutator,
  type ConfigState,
  type ConfigStateStore,
  type EnvironmentTarget,
} from '../../core/config/index.js';
import type { Experiment, ExperimentDefinition, ExperimentState, Iteration } from './experiments.model.js';
import * as repo from './experiments.repository.js';
import { servedExperiment, withServed } from './served-state.js';

export interface EnvInput {
  appId: string;
  env: string;
}

export interface ServedChange {
  experiment: Experiment;
  version: number;
  changeId: string | null;
}

export interface ExperimentsDeps {
  db: Kysely<Database>;
  access: AppAccess;
  journal: JournalService;
  store: ConfigStateStore;
  mutator: ConfigMutator;
  metrics: Pick<MetricsService, 'findRevision'>;
  layers: LayersService;
  holdouts: Pick<HoldoutsService, 'find'>;
  /** The clock of iteration starts and transitions (results windows and retention checks read them). */
  now?: () => number;
}

export const experimentNotFound = (id: string) => notFound(`Experiment ${id}`);

/** The journal's view of a definition: what a person reads in a diff. */
export const journaled = (d: ExperimentDefinition, state: ExperimentState) =>
  ({ ...d, state }) as unknown as Record<string, unknown>;

/** A journal entry's context for a cleared change (absent otherwise, as before protection). */
export const contextOf = (clearance: Clearance | undefined) =>
  clearance ? { context: clearanceContext(clearance) } : {};

/** The clock, the access check, and reading and writing an experiment's revisions. */
export function experimentRevisions(deps: ExperimentsDeps) {
  const { layers } = deps;
  const clock = deps.now ?? Date.now;
  const nowIso = () => new Date(clock()).toISOString();
  const target = (principal: Principal, appId: string, env: string, need: Permission, executor?: Executor) =>
    resolveTarget(deps.access, principal, appId, env, need, executor);

  async function view(executor: Executor, envTarget: EnvironmentTarget, row: repo.ExperimentRow): Promise<Experiment> {
    const range = row.definition.layerId
      ? await layers.placement(executor, envTarget, row.definition.layerId, row.id)
      : null;
    return {
      id: row.id,
      appId: row.appId,
      env: envTarget.env,
      key: row.key,
      revision: row.revision,
      state: row.state,
      ...row.definition,
      layerRange: range ? { start: range.start, end: range.end } : null,
      currentIteration: await repo.currentIteration(executor, row.id),
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
      createdBy: row.createdBy,
    };
  }

  /** The experiment at the revision the caller holds (404, then 409 version_conflict). */
  async function held(executor: Executor, envTarget: EnvironmentTarget, id: string, revision: number) {
    const row = await repo.findExperiment(executor, envTarget.envId, id);
    if (!row) throw experimentNotFound(id);
    if (row.revision !== revision) throw versionConflict(row.revision, 'currentRevision');
    return row;
  }

  /** Writes the next revision of the row; a concurrent writer that got there first is a 409. */
  async function save(
    trx: Executor,
    row: repo.ExperimentRow,
    next: Pick<repo.ExperimentRow, 'state' | 'definition'>,
    principal: Principal,
  ) {
    const saved: repo.ExperimentRow = { ...row, ...next, revision: row.revision + 1, updatedAt: nowIso() };
    if (!(await repo.updateExperiment(trx, saved, row.revision, authorityOf(principal)))) {
      const current = await repo.findExperiment(trx, row.envId, row.id);
      throw versionConflict(current?.revision ?? row.revision, 'currentRevision');
    }
    return saved;
  }

  async function served(
    trx: Executor,
    envTarget: EnvironmentTarget,
    row: repo.ExperimentRow,
    iteration: Iteration,
  ): Promise<ServedExperiment> {
    const { layerId, holdoutId } = row.definition;
    const placement = layerId ? await layers.placement(trx, envTarget, layerId, row.id) : null;
    const holdout = holdoutId ? await deps.holdouts.find(trx, envTarget, holdoutId) : undefined;
    return servedExperiment({
      id: row.id,
      key: row.key,
      definition: row.definition,
      iteration,
      layer: placement ? { id: placement.id, salt: placement.salt, start: placement.start, end: placement.end } : null,
      holdout: holdout ? { id: holdout.id, salt: holdout.salt, percentage: holdout.percentage } : null,
    });
  }

  /**
   * One change of a started experiment: under the environment's config lock, `change` writes the
   * experiment's rows and says what it now serves (null: nothing). The config mutator makes that
   * version N+1 with its journal entry, or a no-op when the served state did not change — then the
   * change is journaled on its own (archiving, for one).
   */
  async function applyServed(
    trx: Executor,
    principal: Principal,
    envTarget: EnvironmentTarget,
    id: string,
    operation: string,
    source: JournalSource,
    clearance: Clearance | undefined,
    change: (
      state: ConfigState,
    ) => Promise<{ row: repo.ExperimentRow; before: repo.ExperimentRow; served: ServedExperiment | null }>,
  ): Promise<ServedChange> {
    // Protected environments: the mutator refuses the write unless it is cleared (a proposal or a stop).
    let written: { row: repo.ExperimentRow; before: repo.ExperimentRow } | undefined;
    const applied = await deps.mutator.apply(
      trx,
      { target: envTarget, source, authority: authorityOf(principal), ...(clearance ? { clearance } : {}) },
      async (current) => {
        const result = await change(current.state);
        written = result;
        return {
          state: withServed(current.state, id, result.served),
          operation,
          resourceType: 'experiment',
          resourceId: id,
          result: null,
        };
      },
    );
    const { row, before } = written!;
    if (applied.changeId === null) {
      await deps.journal.record(trx, {
        appId: envTarget.appId,
        env: envTarget.env,
        operation,
        source,
        resourceType: 'experiment',
        resourceId: id,
        authority: authorityOf(principal),
        beforeVersion: null,
        afterVersion: null,
        diff: definitionDiff(
          'experiment',
          row.key,
          journaled(before.definition, before.state),
          journaled(row.definition, row.state),
        ),
        ...contextOf(clearance),
      });
    }
    return { experiment: await view(trx, envTarget, row), version: applied.version, changeId: applied.changeId };
  }

  return { nowIso, target, view, held, save, served, applyServed };
}

export type ExperimentRevisions = ReturnType<typeof experimentRevisions>;
