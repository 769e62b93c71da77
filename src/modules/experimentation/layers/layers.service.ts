// Layer use cases: create (or preview), patch with version CAS, read; and, for experiments, the
// bucket ranges they reserve, resize and release inside the experiment's own transaction.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import type { Executor } from '../../../db/transaction.js';
import type { AppAccess, Permission } from '../../../platform/app-access.js';
import { conflict, notFound, versionConflict } from '../../../platform/errors.js';
import { newId, nowIso } from '../../../platform/ids.js';
import type { Principal } from '../../../platform/principal.js';
import type { VersionedRow } from '../../../platform/versioned-row.js';
import * as repo from './layers.repository.js';
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
import { freeBucketsOf, placeInLayer, type Layer, type LayerAllocation, type LayerFields } from './layers.model.js';

export interface CreateLayerInput {
  appId: string;
  env: string;
  key: string;
  name: string;
  description?: string;
}
export interface PatchLayerInput {
  appId: string;
  env: string;
  version: number;
  name?: string;
  description?: string;
}

/** What an experiment in a layer needs to assign: the salt and its range. */
export interface LayerPlacement {
  id: string;
  salt: string;
  start: number;
  end: number;
}

export interface LayersService {
  /** A dry run (`trx` null) reads only and stores nothing. */
  create(trx: Executor | null, principal: Principal, input: CreateLayerInput, source: JournalSource): Promise<Layer>;
  /** With a clearance when the authority workflow executes (or previews) a layer.patch proposal. */
  patch(
    trx: Executor | null,
    principal: Principal,
    id: string,
    input: PatchLayerInput,
    source: JournalSource,
    clearance?: Clearance,
  ): Promise<Layer>;
  list(principal: Principal, appId: string, env: string): Promise<Layer[]>;
  get(principal: Principal, appId: string, env: string, id: string): Promise<Layer>;
  /** Gives the experiment `buckets` buckets of the layer (keeping its start if placed): 409 layer_full when they do not fit. */
  place(
    trx: Executor,
    target: EnvironmentTarget,
    layerId: string,
    experimentId: string,
    buckets: number,
  ): Promise<LayerPlacement>;
  /** Frees the experiment's range (archived, or moved to another layer while a draft). */
  release(trx: Executor, target: EnvironmentTarget, layerId: string, experimentId: string): Promise<void>;
  /** A layer of the environment, for experiments naming it. */
  find(executor: Executor, target: EnvironmentTarget, id: string): Promise<Layer | undefined>;
  /** The experiment's current range in the layer, if it has one. */
  placement(
    executor: Executor,
    target: EnvironmentTarget,
    layerId: string,
    experimentId: string,
  ): Promise<LayerPlacement | null>;
}

const fieldsOf = (row: VersionedRow) => JSON.parse(row.definition) as LayerFields;

function toLayer(row: VersionedRow, env: string): Layer {
  const fields = fieldsOf(row);
  return {
    id: row.id,
    appId: row.app_id,
    env,
    key: row.key,
    name: fields.name,
    description: fields.description,
    version: Number(row.version),
    salt: row.salt,
    allocations: fields.allocations,
    freeBuckets: freeBucketsOf(fields.allocations),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    createdBy: JSON.parse(row.created_by) as JournalAuthority,
  };
}

const layerNotFound = (id: string) => notFound(`Layer ${id}`);
/** Optimistic writes of allocations retry this often when another experiment changed the layer meanwhile. */
const PLACEMENT_ATTEMPTS = 5;

export function createLayersService(deps: {
  db: Kysely<Database>;
  access: AppAccess;
  journal: JournalService;
}): LayersService {
  const target = (principal: Principal, appId: string, env: string, need: Permission, executor?: Executor) =>
    resolveTarget(deps.access, principal, appId, env, need, executor);

  async function rowOf(executor: Executor, envTarget: EnvironmentTarget, id: string) {
    const row = await repo.findLayer(executor, envTarget.envId, id);
    if (!row) throw layerNotFound(id);
    return row;
  }

  /** Rewrites the allocations under CAS, re-reading when a concurrent change got there first. */
  async function reallocate(
    trx: Executor,
    envTarget: EnvironmentTarget,
    layerId: string,
    change: (current: LayerAllocation[]) => LayerAllocation[],
  ) {
    for (let attempt = 0; attempt < PLACEMENT_ATTEMPTS; attempt++) {
      const row = await rowOf(trx, envTarget, layerId);
      const fields = fieldsOf(row);
      const allocations = change(fields.allocations);
      if (JSON.stringify(allocations) === JSON.stringify(fields.allocations)) return row;
      if (
        await repo.updateLayer(trx, layerId, Number(row.version), JSON.stringify({ ...fields, allocations }), nowIso())
      )
        return row;
    }
    throw conflict('version_conflict', 'The layer kept changing while this experiment was placed in it.', {
      resolution: 'Retry the request.',
    });
  }

  return {
    async create(writer, principal, input, source) {
      const dryRun = writer === null;
      const trx = writer ?? deps.db;
      const envTarget = await target(principal, input.appId, input.env, 'change', trx);
      const at = nowIso();
      const by = authorityOf(principal);
      const fields: LayerFields = { name: input.name, description: input.description ?? '', allocations: [] };
      const row: VersionedRow = {
        id: newId('lay'),
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
      const keyConflict = () =>
        conflict('key_conflict', `A layer with key "${input.key}" already exists in ${envTarget.env}.`, {
          resolution: 'Choose another key.',
        });
      if (dryRun) {
        if (await repo.keyTaken(trx, envTarget.envId, input.key)) throw keyConflict();
        return toLayer(row, envTarget.env);
      }
      if (!(await repo.insertLayer(trx, row))) throw keyConflict();
      await deps.journal.record(trx, {
        appId: envTarget.appId,
        env: envTarget.env,
        operation: 'layer.create',
        source,
        resourceType: 'layer',
        resourceId: row.id,
        authority: by,
        beforeVersion: null,
        afterVersion: null,
        diff: definitionDiff('layer', input.key, undefined, { name: fields.name, description: fields.description }),
      });
      return toLayer(row, envTarget.env);
    },

    async patch(writer, principal, id, input, sourceGiven, clearance) {
      const source = clearedSource(clearance, sourceGiven);
      const dryRun = writer === null;
      const trx = writer ?? deps.db;
      const envTarget = await target(principal, input.appId, input.env, clearedPermission(clearance, 'change'), trx);
      const row = await rowOf(trx, envTarget, id);
      if (Number(row.version) !== input.version) throw versionConflict(Number(row.version));
      const before = fieldsOf(row);
      const after: LayerFields = {
        ...before,
        name: input.name ?? before.name,
        description: input.description ?? before.description,
      };
      const diff = definitionDiff(
        'layer',
        row.key,
        { name: before.name, description: before.description },
        { name: after.name, description: after.description },
      );
      if (diff.length === 0) return toLayer(row, envTarget.env);
      const at = nowIso();
      const next: VersionedRow = {
        ...row,
        version: input.version + 1,
        definition: JSON.stringify(after),
        updated_at: at,
      };
      if (dryRun) return toLayer(next, envTarget.env);
      if (!(await repo.updateLayer(trx, id, input.version, next.definition, at))) {
        throw versionConflict(Number((await rowOf(trx, envTarget, id)).version));
      }
      await deps.journal.record(trx, {
        appId: envTarget.appId,
        env: envTarget.env,
        operation: 'layer.update',
        source,
        resourceType: 'layer',
        resourceId: id,
        authority: authorityOf(principal),
        beforeVersion: null,
        afterVersion: null,
        diff,
        ...(clearance ? { context: clearanceContext(clearance) } : {}),
      });
      return toLayer(next, envTarget.env);
    },

    async list(principal, appId, env) {
      const envTarget = await target(principal, appId, env, 'read');
      return (await repo.listLayers(deps.db, envTarget.envId)).map((row) => toLayer(row, envTarget.env));
    },

    async get(principal, appId, env, id) {
      const envTarget = await target(principal, appId, env, 'read');
      return toLayer(await rowOf(deps.db, envTarget, id), envTarget.env);
    },

    async place(trx, envTarget, layerId, experimentId, buckets) {
      let placed: LayerAllocation | undefined;
      const row = await reallocate(trx, envTarget, layerId, (current) => {
        const next = placeInLayer(current, experimentId, buckets);
        if (next === null) {
          throw conflict(
            'layer_full',
            `Layer ${layerId} has no free range of ${buckets} buckets for this experiment (${freeBucketsOf(current)} of 10000 are free).`,
            {
              resolution:
                'Lower the allocation, free buckets by archiving another experiment of the layer, or use another layer.',
              metadata: { layerId, requestedBuckets: buckets, freeBuckets: freeBucketsOf(current) },
            },
          );
        }
        placed = next.find((a) => a.experimentId === experimentId);
        return next;
      });
      return { id: layerId, salt: row.salt, start: placed!.start, end: placed!.end };
    },

    async release(trx, envTarget, layerId, experimentId) {
      await reallocate(trx, envTarget, layerId, (current) => current.filter((a) => a.experimentId !== experimentId));
    },

    async find(executor, envTarget, id) {
      const row = await repo.findLayer(executor, envTarget.envId, id);
      return row ? toLayer(row, envTarget.env) : undefined;
    },

    async placement(executor, envTarget, layerId, experimentId) {
      const row = await repo.findLayer(executor, envTarget.envId, layerId);
      const own = row ? fieldsOf(row).allocations.find((a) => a.experimentId === experimentId) : undefined;
      return row && own ? { id: layerId, salt: row.salt, start: own.start, end: own.end } : null;
    },
  };
}
