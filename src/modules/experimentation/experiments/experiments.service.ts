// Experiment use cases. Definitions (drafts, metrics pinned, revisions) live in the experiments
// tables; what a started experiment serves lives in the environment's config state, written through
// the config mutator in the same transaction (docs/decisions/0018): start, pause, resume, ramp,
// iterate and complete each raise the config version and are journaled as a config change. In a
// protected environment (decision 0029) the moves that only reduce exposure (pause, complete without
// a winner) are direct with a reason, journaled with source emergency; the others need a clearance
// from an executed proposal (the change kinds of experiment-change-kinds.ts), else 403.
// This file holds the definitions (create, read, patch); experiment-lifecycle.service.ts the moves,
// experiment-revisions.ts what both read and write.
import type { Executor } from '../../../db/transaction.js';
import { canonicalJson } from '../../../platform/canonical-json.js';
import { conflict } from '../../../platform/errors.js';
import { newId } from '../../../platform/ids.js';
import type { Principal } from '../../../platform/principal.js';
import { authorityOf, definitionDiff, type JournalSource } from '../../core/journal/index.js';
import { clearedPermission, clearedSource, type Clearance, type EnvironmentTarget } from '../../core/config/index.js';
import { experimentLifecycle, type ExperimentLifecycle } from './experiment-lifecycle.service.js';
import {
  contextOf,
  experimentNotFound,
  experimentRevisions,
  journaled,
  type EnvInput,
  type ExperimentsDeps,
} from './experiment-revisions.js';
import { bucketsOf, checkAllocation, checkReferences, checkServedFields } from './experiment-checks.js';
import {
  DEFAULT_ANALYSIS,
  DRAFT_ONLY_FIELDS,
  type AnalysisSettings,
  type Experiment,
  type ExperimentDefinition,
  type GuardrailRef,
  type MetricRef,
} from './experiments.model.js';
import * as repo from './experiments.repository.js';
import type { Condition, Variant } from '@ensign/engine';

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

/**
 * Changes take an optional clearance (core/config clearance.ts): the authority workflow's, when it
 * executes or previews an approved proposal. Without one, a protected environment admits only stops.
 */
export interface ExperimentsService extends ExperimentLifecycle {
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
}

export function createExperimentsService(deps: ExperimentsDeps): ExperimentsService {
  const { layers } = deps;
  const revisions = experimentRevisions(deps);
  const { nowIso, target, view, held, save } = revisions;

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

    ...experimentLifecycle(deps, revisions),
  };
}
