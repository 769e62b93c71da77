// Holdout use cases: create (or preview), patch with version CAS, read. The percentage of a holdout
// that running or paused experiments name is fixed: changing it would move subjects in and out of
// experiments under way.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import type { Executor } from '../../../db/transaction.js';
import type { AppAccess, Permission } from '../../../platform/app-access.js';
import { conflict, notFound, validationError, versionConflict } from '../../../platform/errors.js';
import { newId, nowIso } from '../../../platform/ids.js';
import type { Principal } from '../../../platform/principal.js';
import type { VersionedRow } from '../../../platform/versioned-row.js';
import * as repo from './holdouts.repository.js';
import {
  authorityOf,
  definitionDiff,
  type JournalAuthority,
  type JournalService,
  type JournalSource,
} from '../../core/journal/index.js';
import {
  clearanceContext,
  clearedPermission,
  clearedSource,
  resolveTarget,
  type Clearance,
  type EnvironmentTarget,
} from '../../core/config/index.js';
import type { Holdout, HoldoutFields } from './holdouts.model.js';

export interface CreateHoldoutInput {
  appId: string;
  env: string;
  key: string;
  name: string;
  percentage: number;
  description?: string;
}
export interface PatchHoldoutInput {
  appId: string;
  env: string;
  version: number;
  name?: string;
  description?: string;
  percentage?: number;
}

export interface HoldoutsService {
  /** A dry run (`trx` null) reads only and stores nothing. */
  create(
    trx: Executor | null,
    principal: Principal,
    input: CreateHoldoutInput,
    source: JournalSource,
  ): Promise<Holdout>;
  /** With a clearance when the authority workflow executes (or previews) a holdout.patch proposal. */
  patch(
    trx: Executor | null,
    principal: Principal,
    id: string,
    input: PatchHoldoutInput,
    source: JournalSource,
    clearance?: Clearance,
  ): Promise<Holdout>;
  list(principal: Principal, appId: string, env: string): Promise<Holdout[]>;
  get(principal: Principal, appId: string, env: string, id: string): Promise<Holdout>;
  /** A holdout of the environment, for experiments naming it. */
  find(executor: Executor, target: EnvironmentTarget, id: string): Promise<Holdout | undefined>;
}

export interface HoldoutsDeps {
  db: Kysely<Database>;
  access: AppAccess;
  journal: JournalService;
  /** Ids of the running or paused experiments naming a holdout (the experiments module answers). */
  usedBy: (executor: Executor, target: EnvironmentTarget, holdoutId: string) => Promise<string[]>;
}

function toHoldout(row: VersionedRow, env: string): Holdout {
  const fields = JSON.parse(row.definition) as HoldoutFields;
  return {
    id: row.id,
    appId: row.app_id,
    env,
    key: row.key,
    ...fields,
    version: Number(row.version),
    salt: row.salt,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    createdBy: JSON.parse(row.created_by) as JournalAuthority,
  };
}

const twoDecimals = (percentage: number, path: string) => {
  if (Math.abs(percentage * 100 - Math.round(percentage * 100)) > 1e-6) {
    throw validationError('percentage has at most two decimals.', [
      { path, message: 'must have at most two decimals' },
    ]);
  }
};

export function createHoldoutsService(deps: HoldoutsDeps): HoldoutsService {
  const target = (principal: Principal, appId: string, env: string, need: Permission, executor?: Executor) =>
    resolveTarget(deps.access, principal, appId, env, need, executor);
  const fieldsOf = (h: Holdout): HoldoutFields => ({
    name: h.name,
    description: h.description,
    percentage: h.percentage,
  });

  async function holdoutOf(executor: Executor, envTarget: EnvironmentTarget, id: string) {
    const row = await repo.findHoldout(executor, envTarget.envId, id);
    if (!row) throw notFound(`Holdout ${id}`);
    return toHoldout(row, envTarget.env);
  }

  return {
    async create(writer, principal, input, source) {
      const trx = writer ?? deps.db;
      const envTarget = await target(principal, input.appId, input.env, 'change', trx);
      twoDecimals(input.percentage, '/percentage');
      const at = nowIso();
      const by = authorityOf(principal);
      const fields: HoldoutFields = {
        name: input.name,
        description: input.description ?? '',
        percentage: input.percentage,
      };
      const row: VersionedRow = {
        id: newId('hol'),
        app_id: envTarget.appId,
        env_id: envTarget.envId,
        key: input.key,
        version: 1,
        salt: randomBytes(12).toString('base64url'),
        definition: JSON.stringify(fields),
        created_at: at,
        updated_at: at,
        created_by: JSON.stringify(by),
      };
      const taken =
        writer === null ? await repo.keyTaken(trx, envTarget.envId, input.key) : !(await repo.insertHoldout(trx, row));
      if (taken)
        throw conflict('key_conflict', `A holdout with key "${input.key}" already exists in ${envTarget.env}.`, {
          resolution: 'Choose another key.',
        });
      if (writer !== null) {
        await deps.journal.record(trx, {
          appId: envTarget.appId,
          env: envTarget.env,
          operation: 'holdout.create',
          source,
          resourceType: 'holdout',
          resourceId: row.id,
          authority: by,
          beforeVersion: null,
          afterVersion: null,
          diff: definitionDiff('holdout', input.key, undefined, { ...fields }),
        });
      }
      return toHoldout(row, envTarget.env);
    },

    async patch(writer, principal, id, input, sourceGiven, clearance) {
      const source = clearedSource(clearance, sourceGiven);
      const trx = writer ?? deps.db;
      const envTarget = await target(principal, input.appId, input.env, clearedPermission(clearance, 'change'), trx);
      const current = await holdoutOf(trx, envTarget, id);
      if (current.version !== input.version) throw versionConflict(current.version);
      if (input.percentage !== undefined) twoDecimals(input.percentage, '/percentage');
      const before = fieldsOf(current);
      const after: HoldoutFields = {
        name: input.name ?? before.name,
        description: input.description ?? before.description,
        percentage: input.percentage ?? before.percentage,
      };
      const diff = definitionDiff('holdout', current.key, { ...before }, { ...after });
      if (diff.length === 0) return current;
      if (after.percentage !== before.percentage) {
        const users = await deps.usedBy(trx, envTarget, id);
        if (users.length > 0) {
          throw conflict(
            'holdout_in_use',
            `Holdout ${id} is named by running or paused experiments (${users.join(', ')}); its percentage cannot change while they run.`,
            {
              resolution: 'Complete those experiments first, or create another holdout for new experiments.',
              metadata: { experimentIds: users },
            },
          );
        }
      }
      const at = nowIso();
      const next: Holdout = { ...current, ...after, version: current.version + 1, updatedAt: at };
      if (writer === null) return next;
      if (!(await repo.updateHoldout(trx, id, input.version, JSON.stringify(after), at)))
        throw versionConflict((await holdoutOf(trx, envTarget, id)).version);
      await deps.journal.record(trx, {
        appId: envTarget.appId,
        env: envTarget.env,
        operation: 'holdout.update',
        source,
        resourceType: 'holdout',
        resourceId: id,
        authority: authorityOf(principal),
        beforeVersion: null,
        afterVersion: null,
        diff,
        ...(clearance ? { context: clearanceContext(clearance) } : {}),
      });
      return next;
    },

    async list(principal, appId, env) {
      const envTarget = await target(principal, appId, env, 'read');
      return (await repo.listHoldouts(deps.db, envTarget.envId)).map((row) => toHoldout(row, envTarget.env));
    },

    async get(principal, appId, env, id) {
      return holdoutOf(deps.db, await target(principal, appId, env, 'read'), id);
    },

    async find(executor, envTarget, id) {
      const row = await repo.findHoldout(executor, envTarget.envId, id);
      return row ? toHoldout(row, envTarget.env) : undefined;
    },
  };
}
