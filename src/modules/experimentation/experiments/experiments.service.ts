// Experiment use cases. Definitions (drafts, metrics pinned, revisions) live in the experiments
// tables; what a started experiment serves lives in the environment's config state, written through
// the config mutator in the same transaction (docs/decisions/0018): start, pause, resume, ramp,
// iterate and complete each raise the config version and are journaled as a config change. In a
// protected environment (decision 0029) the moves that only reduce exposure (pause, complete without
// a winner) are direct with a reason, journaled with source emergency; the others need a clearance
// from an executed proposal (the change kinds of experiment-change-kinds.ts), else 403.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import type { Executor } from '../../../db/transaction.js';
import type { ServedExperiment } from '@ensign/engine';
import type { AppAccess, Permission } from '../../../platform/app-access.js';
import { canonicalJson } from '../../../platform/canonical-json.js';
import { conflict, notFound, validationError, versionConflict } from '../../../platform/errors.js';
import { newId } from '../../../platform/ids.js';
import type { Principal } from '../../../platform/principal.js';
import type { HoldoutsService } from '../holdouts/index.js';
import { authorityOf, definitionDiff, type JournalService, type JournalSource } from '../../core/journal/index.js';
import type { LayersService } from '../layers/index.js';
import type { MetricsService } from '../experiment-metrics/index.js';
import {
  clearanceContext,
  clearDirectMove,
  clearedId,
  clearedPermission,
  clearedSalt,
  clearedSource,
  resolveTarget,
  shellWord,
  type Clearance,
  type ConfigMutator,
  type ConfigState,
  type ConfigStateStore,
  type EnvironmentTarget,
  type ProposalHint,
} from '../../core/config/index.js';
import { bucketsOf, checkAllocation, checkReferences, checkServedFields } from './experiment-checks.js';
import {
  DEFAULT_ANALYSIS,
  DRAFT_ONLY_FIELDS,
  TRANSITIONS,
  type AnalysisSettings,
  type Experiment,
  type ExperimentDefinition,
  type ExperimentState,
  type GuardrailRef,
  type Iteration,
  type MetricRef,
} from './experiments.model.js';
import * as repo from './experiments.repository.js';
import { servedExperiment, servedOnFlag, withServed } from './served-state.js';
import type { Condition, Variant } from '@ensign/engine';

interface EnvInput {
  appId: string;
  env: string;
}

export interface CreateExperimentInput extends EnvInput {
  key: string;
  name: string;
  hypothesis?: string;
  flagKey: string;
  variants: Variant[];
  allocation: number;
  layerId?: string;
  holdoutId?: string;
  primaryMetric: MetricRef;
  secondaryMetrics?: MetricRef[];
  guardrailMetrics?: GuardrailRef[];
  analysis?: Partial<AnalysisSettings>;
  targeting?: Condition[];
}

export interface PatchExperimentInput extends EnvInput {
  revision: number;
  name?: string;
  hypothesis?: string;
  analysis?: Partial<AnalysisSettings>;
  flagKey?: string;
  variants?: Variant[];
  allocation?: number;
  layerId?: string | null;
  holdoutId?: string | null;
  primaryMetric?: MetricRef;
  secondaryMetrics?: MetricRef[];
  guardrailMetrics?: GuardrailRef[];
  targeting?: Condition[];
}

export interface TransitionInput extends EnvInput {
  revision: number;
  to: ExperimentState;
  reason?: string;
  winner?: string;
}
export interface RampInput extends EnvInput {
  revision: number;
  allocation: number;
}
export interface IterateInput extends EnvInput {
  revision: number;
}

export interface ServedChange {
  experiment: Experiment;
  version: number;
  changeId: string | null;
}

/**
 * Changes take an optional clearance (core/config clearance.ts): the authority workflow's, when it
 * executes or previews an approved proposal. Without one, a protected environment admits only stops.
 */
export interface ExperimentsService {
  create(trx: Executor, principal: Principal, input: CreateExperimentInput, source: JournalSource): Promise<Experiment>;
  list(principal: Principal, appId: string, env: string): Promise<Experiment[]>;
  get(principal: Principal, appId: string, env: string, id: string): Promise<Experiment>;
  /** The experiment as stored, read in `executor` (no access check: the caller resolved the target). */
  find(executor: Executor, target: EnvironmentTarget, id: string): Promise<Experiment | null>;
  patch(
    trx: Executor,
    principal: Principal,
    id: string,
    input: PatchExperimentInput,
    source: JournalSource,
    clearance?: Clearance,
  ): Promise<Experiment>;
  transition(
    trx: Executor,
    principal: Principal,
    id: string,
    input: TransitionInput,
    source: JournalSource,
    clearance?: Clearance,
  ): Promise<ServedChange>;
  ramp(
    trx: Executor,
    principal: Principal,
    id: string,
    input: RampInput,
    source: JournalSource,
    clearance?: Clearance,
  ): Promise<ServedChange>;
  iterate(
    trx: Executor,
    principal: Principal,
    id: string,
    input: IterateInput,
    source: JournalSource,
    clearance?: Clearance,
  ): Promise<ServedChange>;
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

const newSalt = () => randomBytes(12).toString('base64url');
const experimentNotFound = (id: string) => notFound(`Experiment ${id}`);

/** How a move refused in a protected environment is proposed instead. */
function proposalHint(
  kind: string,
  target: EnvironmentTarget,
  body: Record<string, unknown>,
  options: [string, string | number | undefined][],
): ProposalHint {
  const flags = options
    .filter(([, v]) => v !== undefined)
    .map(([name, v]) => ` --${name} ${shellWord(v!)}`)
    .join('');
  const command = `ensign propose ${kind.replace('.', '-')} ${shellWord(String(body.experimentId))} --app ${shellWord(target.appId)} --env ${shellWord(target.env)}${flags}`;
  return { kind, body, command };
}

/** The journal's view of a definition: what a person reads in a diff. */
const journaled = (d: ExperimentDefinition, state: ExperimentState) =>
  ({ ...d, state }) as unknown as Record<string, unknown>;

export function createExperimentsService(deps: ExperimentsDeps): ExperimentsService {
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

  /** A journal entry's context for a cleared change (absent otherwise, as before protection). */
  const contextOf = (clearance: Clearance | undefined) => (clearance ? { context: clearanceContext(clearance) } : {});

  return {
    async create(trx, principal, input, source) {
      const envTarget = await target(principal, input.appId, input.env, 'change', trx);
      const definition: ExperimentDefinition = {
        name: input.name,
        hypothesis: input.hypothesis ?? '',
        flagKey: input.flagKey,
        variants: input.variants,
        allocation: input.allocation,
        layerId: input.layerId ?? null,
        holdoutId: input.holdoutId ?? null,
        primaryMetric: input.primaryMetric,
        secondaryMetrics: input.secondaryMetrics ?? [],
        guardrailMetrics: input.guardrailMetrics ?? [],
        analysis: { ...DEFAULT_ANALYSIS, ...input.analysis },
        targeting: input.targeting ?? [],
        winner: null,
        lastTransition: null,
      };
      checkAllocation(definition.allocation);
      const { state } = await deps.store.lock(trx, envTarget);
      checkServedFields(state, definition);
      await checkReferences(deps, trx, envTarget, definition);
      const at = nowIso();
      const by = authorityOf(principal);
      const row: repo.ExperimentRow = {
        id: newId('exp'),
        appId: envTarget.appId,
        envId: envTarget.envId,
        key: input.key,
        revision: 1,
        state: 'draft',
        definition,
        createdAt: at,
        updatedAt: at,
        createdBy: by,
      };
      if (!(await repo.insertExperiment(trx, row))) {
        throw conflict('key_conflict', `An experiment with key "${input.key}" already exists in ${envTarget.env}.`, {
          resolution: 'Choose another key.',
        });
      }
      if (definition.layerId)
        await layers.place(trx, envTarget, definition.layerId, row.id, bucketsOf(definition.allocation));
      await deps.journal.record(trx, {
        appId: envTarget.appId,
        env: envTarget.env,
        operation: 'experiment.create',
        source,
        resourceType: 'experiment',
        resourceId: row.id,
        authority: by,
        beforeVersion: null,
        afterVersion: null,
        diff: definitionDiff('experiment', row.key, undefined, journaled(definition, 'draft')),
      });
      return view(trx, envTarget, row);
    },

    async list(principal, appId, env) {
      const envTarget = await target(principal, appId, env, 'read');
      const rows = await repo.listExperiments(deps.db, envTarget.envId);
      return Promise.all(rows.map((row) => view(deps.db, envTarget, row)));
    },

    async get(principal, appId, env, id) {
      const envTarget = await target(principal, appId, env, 'read');
      const row = await repo.findExperiment(deps.db, envTarget.envId, id);
      if (!row) throw experimentNotFound(id);
      return view(deps.db, envTarget, row);
    },

    async find(executor, envTarget, id) {
      const row = await repo.findExperiment(executor, envTarget.envId, id);
      return row ? view(executor, envTarget, row) : null;
    },

    async patch(trx, principal, id, input, sourceGiven, clearance) {
      const { appId, env, revision, analysis, ...fields } = input;
      const envTarget = await target(principal, appId, env, clearedPermission(clearance, 'change'), trx);
      const source = clearedSource(clearance, sourceGiven);
      const row = await held(trx, envTarget, id, revision);
      const before = row.definition;
      const next: ExperimentDefinition = { ...before, analysis: { ...before.analysis, ...analysis } };
      for (const [field, value] of Object.entries(fields))
        if (value !== undefined) (next as unknown as Record<string, unknown>)[field] = value;
      const changed = DRAFT_ONLY_FIELDS.filter((f) => canonicalJson(before[f]) !== canonicalJson(next[f]));
      if (changed.length > 0 && row.state !== 'draft') {
        throw conflict(
          'experiment_not_draft',
          `${changed.join(', ')} can change only while the experiment is a draft; it is ${row.state}.`,
          {
            resolution:
              row.state === 'running' || row.state === 'paused'
                ? 'Use ramp to change the allocation, or iterate a paused experiment.'
                : 'Create a new experiment.',
            metadata: { state: row.state, fields: changed },
          },
        );
      }
      const diff = definitionDiff('experiment', row.key, journaled(before, row.state), journaled(next, row.state));
      if (diff.length === 0) return view(trx, envTarget, row);
      if (changed.length > 0) {
        checkAllocation(next.allocation);
        checkServedFields((await deps.store.lock(trx, envTarget)).state, next);
        await checkReferences(deps, trx, envTarget, next);
        if (before.layerId && before.layerId !== next.layerId) await layers.release(trx, envTarget, before.layerId, id);
        if (next.layerId) await layers.place(trx, envTarget, next.layerId, id, bucketsOf(next.allocation));
      }
      const saved = await save(trx, row, { state: row.state, definition: next }, principal);
      await deps.journal.record(trx, {
        appId: envTarget.appId,
        env: envTarget.env,
        operation: 'experiment.update',
        source,
        resourceType: 'experiment',
        resourceId: id,
        authority: authorityOf(principal),
        beforeVersion: null,
        afterVersion: null,
        diff,
        ...contextOf(clearance),
      });
      return view(trx, envTarget, saved);
    },

    async transition(trx, principal, id, input, sourceGiven, clearanceGiven) {
      const envTarget = await target(
        principal,
        input.appId,
        input.env,
        clearedPermission(clearanceGiven, 'change'),
        trx,
      );
      const row = await held(trx, envTarget, id, input.revision);
      const from = row.state;
      const to = input.to;
      // Any state name is accepted; no move leads back to draft, and that is refused like every move not allowed.
      if (to === 'draft' || !TRANSITIONS[from].includes(to)) {
        throw conflict('invalid_transition', `An experiment cannot move from ${from} to ${to}.`, {
          resolution: `From ${from} it can move to: ${TRANSITIONS[from].join(', ') || 'nothing (archived is final)'}.`,
          metadata: { from, to, allowed: TRANSITIONS[from] },
        });
      }
      if (input.winner !== undefined) {
        if (to !== 'completed')
          throw validationError('winner is given only when completing an experiment.', [
            { path: '/winner', message: 'is allowed only with to: completed' },
          ]);
        if (!row.definition.variants.some((v) => v.key === input.winner)) {
          throw validationError(`winner "${input.winner}" is not a variant of this experiment.`, [
            { path: '/winner', message: `must be one of ${row.definition.variants.map((v) => v.key).join(', ')}` },
          ]);
        }
      }
      // Pausing and completing without a winner only take subjects out: the stops of a protected environment.
      const stop = to === 'paused' || (to === 'completed' && input.winner === undefined);
      const clearance = clearDirectMove(
        envTarget,
        {
          stop,
          reason: input.reason,
          proposal: proposalHint(
            'experiment.transition',
            envTarget,
            {
              experimentId: id,
              revision: input.revision,
              to: to,
              ...(input.winner !== undefined ? { winner: input.winner } : {}),
            },
            [
              ['to', to],
              ['winner', input.winner],
              ['revision', input.revision],
            ],
          ),
        },
        clearanceGiven,
      );
      const source = clearedSource(clearance, sourceGiven);
      const operation = {
        running: from === 'draft' ? 'experiment.start' : 'experiment.resume',
        paused: 'experiment.pause',
        completed: 'experiment.complete',
        archived: 'experiment.archive',
      }[to];
      return applyServed(trx, principal, envTarget, id, operation, source, clearance, async (state) => {
        let iteration = await repo.currentIteration(trx, id);
        if (from === 'draft') {
          checkServedFields(state, row.definition);
          const other = servedOnFlag(state, row.definition.flagKey, id);
          if (other) {
            throw conflict(
              'flag_in_experiment',
              `Flag "${row.definition.flagKey}" already runs experiment ${other.key} (${other.id}).`,
              {
                resolution: 'Complete that experiment first; a flag runs one experiment at a time.',
                metadata: { experimentId: other.id },
              },
            );
          }
          iteration = {
            id: clearedId(clearance, 'itr'),
            number: 1,
            revision: 1,
            salt: clearedSalt(clearance, 'iteration', newSalt),
            allocation: row.definition.allocation,
            startedAt: nowIso(),
            state: 'running',
          };
          await repo.insertIteration(trx, id, iteration, iteration.startedAt);
        } else if (iteration && to !== 'archived') {
          iteration = { ...iteration, state: to === 'completed' ? 'completed' : to };
          await repo.setIterationState(trx, iteration, iteration.state);
        }
        if (to === 'archived' && row.definition.layerId)
          await layers.release(trx, envTarget, row.definition.layerId, id);
        const lastTransition = { from, to: to, reason: input.reason ?? null, at: nowIso() };
        const definition = {
          ...row.definition,
          lastTransition,
          ...(to === 'completed' ? { winner: input.winner ?? null } : {}),
        };
        const saved = await save(trx, row, { state: to, definition }, principal);
        const serves = to === 'running' || to === 'paused';
        return { row: saved, before: row, served: serves ? await served(trx, envTarget, saved, iteration!) : null };
      });
    },

    async ramp(trx, principal, id, input, sourceGiven, clearanceGiven) {
      const envTarget = await target(
        principal,
        input.appId,
        input.env,
        clearedPermission(clearanceGiven, 'change'),
        trx,
      );
      const row = await held(trx, envTarget, id, input.revision);
      if (row.state !== 'running' && row.state !== 'paused') {
        throw conflict(
          'invalid_state',
          `Only a running or paused experiment can be ramped; this one is ${row.state}.`,
          {
            resolution:
              row.state === 'draft' ? 'Change the allocation of a draft with PATCH.' : 'Create a new experiment.',
            metadata: { state: row.state },
          },
        );
      }
      checkAllocation(input.allocation);
      if (input.allocation === row.definition.allocation) {
        return {
          experiment: await view(trx, envTarget, row),
          version: (await deps.store.lock(trx, envTarget)).version,
          changeId: null,
        };
      }
      // Either way a ramp changes who is measured mid-iteration: never a stop.
      const clearance = clearDirectMove(
        envTarget,
        {
          stop: false,
          proposal: proposalHint(
            'experiment.ramp',
            envTarget,
            { experimentId: id, revision: input.revision, allocation: input.allocation },
            [
              ['allocation', input.allocation],
              ['revision', input.revision],
            ],
          ),
        },
        clearanceGiven,
      );
      return applyServed(
        trx,
        principal,
        envTarget,
        id,
        'experiment.ramp',
        clearedSource(clearance, sourceGiven),
        clearance,
        async () => {
          const current = (await repo.currentIteration(trx, id))!;
          // In a layer the range is the allocation: it grows or shrinks at its end (409 layer_full).
          if (row.definition.layerId)
            await layers.place(trx, envTarget, row.definition.layerId, id, bucketsOf(input.allocation));
          const iteration: Iteration = { ...current, revision: current.revision + 1, allocation: input.allocation };
          await repo.insertIteration(trx, id, iteration, nowIso());
          const saved = await save(
            trx,
            row,
            { state: row.state, definition: { ...row.definition, allocation: input.allocation } },
            principal,
          );
          return { row: saved, before: row, served: await served(trx, envTarget, saved, iteration) };
        },
      );
    },

    async iterate(trx, principal, id, input, sourceGiven, clearanceGiven) {
      const envTarget = await target(
        principal,
        input.appId,
        input.env,
        clearedPermission(clearanceGiven, 'change'),
        trx,
      );
      const row = await held(trx, envTarget, id, input.revision);
      if (row.state !== 'paused') {
        throw conflict('invalid_state', `Only a paused experiment can be iterated; this one is ${row.state}.`, {
          resolution:
            row.state === 'running' ? 'Pause it first, then iterate.' : 'Iterate applies to paused experiments only.',
          metadata: { state: row.state },
        });
      }
      const clearance = clearDirectMove(
        envTarget,
        {
          stop: false,
          proposal: proposalHint('experiment.iterate', envTarget, { experimentId: id, revision: input.revision }, [
            ['revision', input.revision],
          ]),
        },
        clearanceGiven,
      );
      return applyServed(
        trx,
        principal,
        envTarget,
        id,
        'experiment.iterate',
        clearedSource(clearance, sourceGiven),
        clearance,
        async () => {
          const previous = (await repo.currentIteration(trx, id))!;
          await repo.setIterationState(trx, previous, 'completed');
          const at = nowIso();
          const iteration: Iteration = {
            id: clearedId(clearance, 'itr'),
            number: previous.number + 1,
            revision: 1,
            salt: clearedSalt(clearance, 'iteration', newSalt),
            allocation: previous.allocation,
            startedAt: at,
            state: 'running',
          };
          await repo.insertIteration(trx, id, iteration, at);
          const saved = await save(trx, row, { state: 'running', definition: row.definition }, principal);
          return { row: saved, before: row, served: await served(trx, envTarget, saved, iteration) };
        },
      );
    },
  };
}
