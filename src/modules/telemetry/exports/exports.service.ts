// Export destination use cases: create (secret shown once), list, read with health, update with
// compare-and-swap on `version`, and secret rotation with 24 hours of dual signing.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import type { Executor } from '../../../db/transaction.js';
import type { AppAccess } from '../../../platform/app-access.js';
import { conflict, notFound, validationError, versionConflict } from '../../../platform/errors.js';
import { newId } from '../../../platform/ids.js';
import { decodeCursor, encodeCursor } from '../../../platform/pagination.js';
import type { Principal } from '../../../platform/principal.js';
import type { SecretBox } from '../../../platform/secret-box.js';
import { EVENT_KINDS, RAW_RETENTION_MS, telemetryReadModel, type EventKind } from '../ingestion/index.js';
import * as deliveryRepo from './webhook-deliveries.repository.js';
import type { DeliveryStatus, DeliveryView } from './webhook-deliveries.repository.js';
import { resolveTarget } from '../../core/config/index.js';
import { authorityOf, definitionDiff, type JournalService, type JournalSource } from '../../core/journal/index.js';
import { findBackfill, listBackfills, requestBackfill, type BackfillView } from './backfills.js';
import { checkTarget, type ExportPolicy } from './export-policy.js';
import { runRecurringNow } from '../../../jobs/index.js';
import {
  DEFAULT_BATCH_SIZE,
  DUAL_SIGNING_MS,
  SCHEDULE_JOB,
  type Destination,
  type DestinationFields,
  type DestinationFilters,
  type DestinationHealth,
  type DestinationStatus,
} from './exports.model.js';
import * as repo from './exports.repository.js';

const { feedStart } = telemetryReadModel;

interface EnvInput {
  appId: string;
  env: string;
}

export type CreateDestinationInput = EnvInput & {
  name: string;
  url: string;
  kinds?: EventKind[];
  filters?: DestinationFilters;
  batchSize?: number;
  status?: 'active' | 'paused';
};
export type UpdateDestinationInput = EnvInput & { version: number } & Partial<Omit<DestinationFields, 'status'>> & {
    status?: 'active' | 'paused';
  };

export interface DestinationWithSecret {
  destination: Destination;
  signingSecret: string;
}

export interface ExportsService {
  create(
    trx: Executor,
    principal: Principal,
    input: CreateDestinationInput,
    source?: JournalSource,
  ): Promise<DestinationWithSecret>;
  list(
    principal: Principal,
    appId: string,
    env: string,
    options: { status?: DestinationStatus; limit: number; cursor?: string },
  ): Promise<{ destinations: Destination[]; nextCursor: string | null }>;
  get(
    principal: Principal,
    appId: string,
    env: string,
    id: string,
  ): Promise<{ destination: Destination; health: DestinationHealth }>;
  update(
    trx: Executor,
    principal: Principal,
    id: string,
    input: UpdateDestinationInput,
    source?: JournalSource,
  ): Promise<Destination>;
  /** `version` makes it a compare-and-swap; without it the destination's current secret is rotated. */
  rotateSecret(
    trx: Executor,
    principal: Principal,
    id: string,
    input: EnvInput & { version?: number },
    source?: JournalSource,
  ): Promise<DestinationWithSecret>;
  deliveries(
    principal: Principal,
    id: string,
    query: EnvInput & { status?: DeliveryStatus; from?: string; to?: string; limit: number; cursor?: string },
  ): Promise<{ deliveries: DeliveryView[]; nextCursor: string | null }>;
  retry(
    trx: Executor,
    principal: Principal,
    id: string,
    deliveryId: string,
    input: EnvInput,
    source?: JournalSource,
  ): Promise<DeliveryView>;
  /** Records a backfill and queues its job: 202 at once, the job cuts the deliveries (backfills.ts). */
  backfill(
    trx: Executor,
    principal: Principal,
    id: string,
    input: EnvInput & { from: string; to?: string; idempotencyKey: string },
    source?: JournalSource,
  ): Promise<BackfillView>;
  getBackfill(principal: Principal, id: string, backfillId: string, query: EnvInput): Promise<BackfillView>;
  listBackfills(principal: Principal, id: string, query: EnvInput): Promise<BackfillView[]>;
}

export interface ExportsServiceDeps {
  db: Kysely<Database>;
  access: AppAccess;
  policy: ExportPolicy;
  /** Seals signing secrets at rest (purpose `export-signing-secret`). */
  box: SecretBox;
  now: () => number;
  /** Every destination change is journaled (never its secret). */
  journal: Pick<JournalService, 'record'>;
}

const CURSOR_PREFIX = 'dstc_';
const DELIVERY_CURSOR_PREFIX = 'dlvc_';

/** A Standard Webhooks secret: `whsec_` and base64 of 24 random bytes (the package's own format). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

function normaliseFilters(filters: DestinationFilters | undefined): DestinationFilters {
  const out: DestinationFilters = {};
  if (filters?.flagKeys?.length) out.flagKeys = [...new Set(filters.flagKeys)].sort();
  if (filters?.experimentIds?.length) out.experimentIds = [...new Set(filters.experimentIds)].sort();
  return out;
}

const normaliseKinds = (kinds: EventKind[] | undefined): EventKind[] =>
  kinds?.length ? EVENT_KINDS.filter((k) => kinds.includes(k)) : [...EVENT_KINDS];

export function createExportsService(deps: ExportsServiceDeps): ExportsService {
  const iso = () => new Date(deps.now()).toISOString();
  const scopeOf = async (
    principal: Principal,
    appId: string,
    env: string,
    need: 'read' | 'change',
    executor?: Executor,
  ) => {
    const target = await resolveTarget(deps.access, principal, appId, env, need, executor);
    return { appId: target.appId, envId: target.envId, env: target.env };
  };
  const destinationNotFound = (id: string) => notFound(`Export destination ${id}`);
  /** The fields a journal entry shows of a destination: never its secret. */
  const journaled = (d: Destination) => ({
    name: d.name,
    url: d.url,
    kinds: d.kinds,
    filters: d.filters,
    batchSize: d.batchSize,
    status: d.status,
    version: d.version,
    secretVersion: d.secretVersion,
  });
  const record = (
    trx: Executor,
    principal: Principal,
    source: JournalSource,
    scope: { appId: string; env: string },
    operation: string,
    resourceId: string,
    diff: ReturnType<typeof definitionDiff>,
    context?: Record<string, unknown>,
  ) =>
    deps.journal.record(trx, {
      appId: scope.appId,
      env: scope.env,
      operation,
      source,
      resourceType: 'export_destination',
      resourceId,
      authority: authorityOf(principal),
      beforeVersion: null,
      afterVersion: null,
      diff,
      ...(context ? { context } : {}),
    });
  const nameConflict = (name: string, env: string) =>
    conflict('name_conflict', `An export destination named "${name}" already exists in ${env}.`, {
      resolution: 'Choose another name, or update the existing destination.',
    });

  return {
    async create(trx, principal, input, source = 'api') {
      const scope = await scopeOf(principal, input.appId, input.env, 'change', trx);
      const fields: DestinationFields = {
        name: input.name,
        url: checkTarget(deps.policy, input.url),
        kinds: normaliseKinds(input.kinds),
        filters: normaliseFilters(input.filters),
        batchSize: input.batchSize ?? DEFAULT_BATCH_SIZE,
        status: input.status ?? 'active',
      };
      const signingSecret = newSigningSecret();
      const id = newId('dst');
      // The feed starts at the commit horizon: events of transactions still in flight are included.
      const start = await feedStart(trx);
      if (
        !(await repo.insertDestination(trx, scope, {
          id,
          fields,
          secretSealed: deps.box.seal(signingSecret),
          at: iso(),
          startAt: deps.now(),
          startSeq: start.seq,
        }))
      )
        throw nameConflict(input.name, scope.env);
      const destination = repo.toDestination((await repo.findDestination(trx, scope.envId, id))!, scope.env);
      await record(
        trx,
        principal,
        source,
        scope,
        'export.create',
        id,
        definitionDiff('export_destination', destination.name, undefined, journaled(destination)),
      );
      if (destination.status === 'active') await runRecurringNow(trx, SCHEDULE_JOB, deps.now);
      return { destination, signingSecret };
    },

    async list(principal, appId, env, options) {
      const scope = await scopeOf(principal, appId, env, 'read');
      const rows = await repo.listDestinations(deps.db, scope.envId, {
        status: options.status,
        after: decodeCursor(CURSOR_PREFIX, options.cursor),
        limit: options.limit + 1,
      });
      const page = rows.slice(0, options.limit);
      return {
        destinations: page.map((r) => repo.toDestination(r, scope.env)),
        nextCursor: rows.length > options.limit ? encodeCursor(CURSOR_PREFIX, page.at(-1)!.id) : null,
      };
    },

    async get(principal, appId, env, id) {
      const scope = await scopeOf(principal, appId, env, 'read');
      const row = await repo.findDestination(deps.db, scope.envId, id);
      if (!row) throw destinationNotFound(id);
      const backlog = await deliveryRepo.backlogOf(deps.db, id);
      return { destination: repo.toDestination(row, scope.env), health: { ...repo.healthOf(row), ...backlog } };
    },

    async update(trx, principal, id, input, source = 'api') {
      const { appId, env, version, ...changes } = input;
      const scope = await scopeOf(principal, appId, env, 'change', trx);
      const row = await repo.findDestination(trx, scope.envId, id);
      if (!row) throw destinationNotFound(id);
      if (Number(row.version) !== version) throw versionConflict(Number(row.version));
      const current = repo.toDestination(row, scope.env);
      const after: DestinationFields = {
        name: changes.name ?? current.name,
        url: changes.url === undefined ? current.url : checkTarget(deps.policy, changes.url),
        kinds: changes.kinds === undefined ? current.kinds : normaliseKinds(changes.kinds),
        filters: changes.filters === undefined ? current.filters : normaliseFilters(changes.filters),
        batchSize: changes.batchSize ?? current.batchSize,
        status: changes.status ?? current.status,
      };
      if (after.name !== current.name && (await repo.nameTaken(trx, scope.envId, after.name, id)))
        throw nameConflict(after.name, scope.env);
      // Setting a disabled destination active again starts its failure count afresh.
      const reactivated = current.status === 'disabled' && after.status === 'active';
      if (!(await repo.updateDestination(trx, id, version, after, iso(), reactivated))) {
        const now = await repo.findDestination(trx, scope.envId, id);
        throw versionConflict(Number(now?.version ?? version));
      }
      const updated = repo.toDestination((await repo.findDestination(trx, scope.envId, id))!, scope.env);
      await record(
        trx,
        principal,
        source,
        scope,
        'export.update',
        id,
        definitionDiff('export_destination', updated.name, journaled(current), journaled(updated)),
      );
      // Set active (again): its backlog is read at the next poll, not at the end of the schedule's period.
      if (updated.status === 'active' && current.status !== 'active')
        await runRecurringNow(trx, SCHEDULE_JOB, deps.now);
      return updated;
    },

    async rotateSecret(trx, principal, id, input, source = 'api') {
      const scope = await scopeOf(principal, input.appId, input.env, 'change', trx);
      const row = await repo.findDestination(trx, scope.envId, id);
      if (!row) throw destinationNotFound(id);
      const version = input.version ?? Number(row.version);
      if (Number(row.version) !== version) throw versionConflict(Number(row.version));
      const signingSecret = newSigningSecret();
      const at = deps.now();
      if (
        !(await repo.rotateSecret(
          trx,
          row,
          version,
          deps.box.seal(signingSecret),
          new Date(at + DUAL_SIGNING_MS).toISOString(),
          new Date(at).toISOString(),
        ))
      ) {
        throw versionConflict(Number((await repo.findDestination(trx, scope.envId, id))?.version ?? version));
      }
      const destination = repo.toDestination((await repo.findDestination(trx, scope.envId, id))!, scope.env);
      await record(
        trx,
        principal,
        source,
        scope,
        'export.rotate_secret',
        id,
        definitionDiff(
          'export_destination',
          destination.name,
          journaled(repo.toDestination(row, scope.env)),
          journaled(destination),
        ),
        {
          previousSecretValidUntil: new Date(at + DUAL_SIGNING_MS).toISOString(),
        },
      );
      return { destination, signingSecret };
    },

    async deliveries(principal, id, query) {
      const scope = await scopeOf(principal, query.appId, query.env, 'read');
      if (!(await repo.findDestination(deps.db, scope.envId, id))) throw destinationNotFound(id);
      const rows = await deliveryRepo.listDeliveries(deps.db, id, {
        status: query.status,
        from: query.from,
        to: query.to,
        before: decodeCursor(DELIVERY_CURSOR_PREFIX, query.cursor),
        limit: query.limit + 1,
      });
      const page = rows.slice(0, query.limit);
      return {
        deliveries: page.map(deliveryRepo.toDeliveryView),
        nextCursor: rows.length > query.limit ? encodeCursor(DELIVERY_CURSOR_PREFIX, page.at(-1)!.id) : null,
      };
    },

    async retry(trx, principal, id, deliveryId, input, source = 'api') {
      const scope = await scopeOf(principal, input.appId, input.env, 'change', trx);
      if (!(await repo.findDestination(trx, scope.envId, id))) throw destinationNotFound(id);
      const row = await deliveryRepo.findDelivery(trx, id, deliveryId);
      if (!row) throw notFound(`Delivery ${deliveryId}`);
      const retained = Date.parse(row.last_event_at) >= deps.now() - RAW_RETENTION_MS;
      if ((row.status !== 'failed' && row.status !== 'delivered') || !retained) {
        throw conflict(
          'delivery_not_retryable',
          `Delivery ${deliveryId} is ${row.status}${retained ? '' : ' and its events left retention'}; only a failed or delivered delivery still retained can be retried.`,
        );
      }
      const at = iso();
      // A fresh retry schedule: the scheduler hands it to a worker on its next pass.
      await deliveryRepo.setStatus(trx, row.id, 'pending', at, { attempts: 0, nextAttemptAt: at });
      await record(trx, principal, source, scope, 'export.delivery_retry', id, [], {
        deliveryId,
        previousStatus: row.status,
      });
      return deliveryRepo.toDeliveryView((await deliveryRepo.findDelivery(trx, id, deliveryId))!);
    },

    async backfill(trx, principal, id, input, source = 'api') {
      const scope = await scopeOf(principal, input.appId, input.env, 'change', trx);
      const row = await repo.findDestination(trx, scope.envId, id);
      if (!row) throw destinationNotFound(id);
      const now = deps.now();
      const from = Date.parse(input.from);
      const to = input.to === undefined ? now : Date.parse(input.to);
      if (from < now - RAW_RETENTION_MS)
        throw validationError('from is older than the 30-day raw event retention.', [
          { path: '/from', message: 'must be within the last 30 days' },
        ]);
      if (to <= from) throw validationError('to must be after from.', [{ path: '/to', message: 'must be after from' }]);
      if (to > now + 5 * 60_000)
        throw validationError('to is in the future.', [{ path: '/to', message: 'must not be in the future' }]);
      const backfill = await requestBackfill(trx, { destinationId: id, envId: scope.envId, from, to }, deps.now);
      await record(trx, principal, source, scope, 'export.backfill', id, [], {
        backfillId: backfill.id,
        from: backfill.from,
        to: backfill.to,
      });
      return backfill;
    },

    async getBackfill(principal, id, backfillId, query) {
      const scope = await scopeOf(principal, query.appId, query.env, 'read');
      if (!(await repo.findDestination(deps.db, scope.envId, id))) throw destinationNotFound(id);
      const found = await findBackfill(deps.db, id, backfillId);
      if (!found) throw notFound(`Backfill ${backfillId}`);
      return found;
    },

    async listBackfills(principal, id, query) {
      const scope = await scopeOf(principal, query.appId, query.env, 'read');
      if (!(await repo.findDestination(deps.db, scope.envId, id))) throw destinationNotFound(id);
      return listBackfills(deps.db, id);
    },
  };
}

/** The secrets a delivery is signed with now: the current one, and the previous one within its 24 hours. */
export function signingSecretsOf(row: repo.DestinationRow, box: SecretBox, now: number): string[] {
  const secrets = [box.open(row.secret_sealed)];
  if (
    row.previous_secret_sealed !== null &&
    row.previous_secret_expires_at !== null &&
    Date.parse(row.previous_secret_expires_at) > now
  )
    secrets.push(box.open(row.previous_secret_sealed));
  return secrets;
}
