// Metric use cases: create (revision 1), read heads or exact revisions, and append revisions with
// compare-and-swap on `revision`. Each write is journaled in the caller's transaction.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import type { Executor } from '../../../db/transaction.js';
import type { AppAccess, Permission } from '../../../platform/app-access.js';
import { conflict, notFound, validationError, versionConflict } from '../../../platform/errors.js';
import { newId, nowIso } from '../../../platform/ids.js';
import type { Principal } from '../../../platform/principal.js';
import { authorityOf, definitionDiff, type JournalService, type JournalSource } from '../../core/journal/index.js';
import { resolveTarget, type EnvironmentTarget } from '../../core/config/index.js';
import type { MetricFields, MetricRevision } from './metrics.model.js';
import * as repo from './metrics.repository.js';

interface EnvInput {
  appId: string;
  env: string;
}

export type CreateMetricInput = EnvInput & { key: string } & Omit<
    MetricFields,
    'denominatorMetricKey' | 'winsorizePercentile' | 'description'
  > &
  Partial<Pick<MetricFields, 'denominatorMetricKey' | 'winsorizePercentile' | 'description'>>;
export type ReviseMetricInput = EnvInput & { revision: number } & Partial<MetricFields>;

export interface MetricsService {
  create(trx: Executor, principal: Principal, input: CreateMetricInput, source: JournalSource): Promise<MetricRevision>;
  list(principal: Principal, appId: string, env: string): Promise<MetricRevision[]>;
  get(principal: Principal, appId: string, env: string, id: string, revision?: number): Promise<MetricRevision>;
  revisions(principal: Principal, appId: string, env: string, id: string): Promise<MetricRevision[]>;
  revise(
    trx: Executor,
    principal: Principal,
    id: string,
    input: ReviseMetricInput,
    source: JournalSource,
  ): Promise<MetricRevision>;
  /** Exactly one revision of a metric of the environment, or undefined (experiments pin one). */
  findRevision(
    executor: Executor,
    target: EnvironmentTarget,
    id: string,
    revision: number,
  ): Promise<MetricRevision | undefined>;
}

/** The ratio rule: a denominator exactly when the kind is ratio. */
function checkFields(fields: MetricFields): void {
  if (fields.kind === 'ratio' && fields.denominatorMetricKey === null) {
    throw validationError('A ratio metric needs denominatorMetricKey.', [
      { path: '/denominatorMetricKey', message: 'is required when kind is ratio' },
    ]);
  }
  if (fields.kind !== 'ratio' && fields.denominatorMetricKey !== null) {
    throw validationError(`denominatorMetricKey is for ratio metrics only; this one is a ${fields.kind} metric.`, [
      { path: '/denominatorMetricKey', message: 'must be absent (or null) unless kind is ratio' },
    ]);
  }
}

const fieldsOf = (m: MetricRevision): MetricFields => ({
  name: m.name,
  kind: m.kind,
  eventMetricKey: m.eventMetricKey,
  denominatorMetricKey: m.denominatorMetricKey,
  direction: m.direction,
  winsorizePercentile: m.winsorizePercentile,
  description: m.description,
});

export function createMetricsService(deps: {
  db: Kysely<Database>;
  access: AppAccess;
  journal: JournalService;
}): MetricsService {
  const scopeOf = async (principal: Principal, appId: string, env: string, need: Permission, executor?: Executor) => {
    const target = await resolveTarget(deps.access, principal, appId, env, need, executor);
    return { appId: target.appId, envId: target.envId, env: target.env };
  };
  const metricNotFound = (id: string, revision?: number) =>
    notFound(revision === undefined ? `Metric ${id}` : `Revision ${revision} of metric ${id}`);

  return {
    async create(trx, principal, input, source) {
      const scope = await scopeOf(principal, input.appId, input.env, 'change', trx);
      const fields: MetricFields = {
        name: input.name,
        kind: input.kind,
        eventMetricKey: input.eventMetricKey,
        denominatorMetricKey: input.denominatorMetricKey ?? null,
        direction: input.direction,
        winsorizePercentile: input.winsorizePercentile ?? null,
        description: input.description ?? '',
      };
      checkFields(fields);
      const id = newId('met');
      const by = authorityOf(principal);
      const created = await repo.insertMetric(trx, scope, { id, key: input.key, fields, at: nowIso(), by });
      if (!created) {
        throw conflict('key_conflict', `A metric with key "${input.key}" already exists in ${scope.env}.`, {
          resolution: 'Choose another key, or append a revision to the existing metric.',
        });
      }
      await deps.journal.record(trx, {
        appId: scope.appId,
        env: scope.env,
        operation: 'metric.create',
        source,
        resourceType: 'metric',
        resourceId: id,
        authority: by,
        beforeVersion: null,
        afterVersion: null,
        diff: definitionDiff('metric', input.key, undefined, { ...fields }),
      });
      return (await repo.findRevision(trx, scope, id, 1))!;
    },

    async list(principal, appId, env) {
      return repo.listHeads(deps.db, await scopeOf(principal, appId, env, 'read'));
    },

    async get(principal, appId, env, id, revision) {
      const scope = await scopeOf(principal, appId, env, 'read');
      const found = await repo.findRevision(deps.db, scope, id, revision);
      if (!found) throw metricNotFound(id, revision);
      return found;
    },

    async revisions(principal, appId, env, id) {
      const scope = await scopeOf(principal, appId, env, 'read');
      const all = await repo.listRevisions(deps.db, scope, id);
      if (all.length === 0) throw metricNotFound(id);
      return all;
    },

    async revise(trx, principal, id, input, source) {
      const { appId, env, revision, ...changes } = input;
      const scope = await scopeOf(principal, appId, env, 'change', trx);
      const head = await repo.findRevision(trx, scope, id);
      if (!head) throw metricNotFound(id);
      if (head.revision !== revision) throw versionConflict(head.revision, 'currentRevision');
      const before = fieldsOf(head);
      const after: MetricFields = { ...before };
      for (const [field, value] of Object.entries(changes))
        if (value !== undefined) (after as unknown as Record<string, unknown>)[field] = value;
      checkFields(after);
      const diff = definitionDiff('metric', head.key, { ...before }, { ...after });
      // Nothing changes: the head is the answer, and no revision is appended (CONTRACT: a no-op).
      if (diff.length === 0) return head;
      const by = authorityOf(principal);
      if (!(await repo.appendRevision(trx, id, revision, after, nowIso(), by))) {
        const current = await repo.findRevision(trx, scope, id);
        throw versionConflict(current?.revision ?? revision, 'currentRevision');
      }
      await deps.journal.record(trx, {
        appId: scope.appId,
        env: scope.env,
        operation: 'metric.revise',
        source,
        resourceType: 'metric',
        resourceId: id,
        authority: by,
        beforeVersion: null,
        afterVersion: null,
        diff,
      });
      return (await repo.findRevision(trx, scope, id, revision + 1))!;
    },

    findRevision: (executor, target, id, revision) => repo.findRevision(executor, target, id, revision),
  };
}
