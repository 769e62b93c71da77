// Subject erasure (issue 13). The request records a receipt, a tombstone and a job in one
// transaction, or nothing (503: it fails closed). The leased job then deletes the subject's raw
// events, rebuilds the rollups they touched and recomputes the experiment aggregates that held them. Ingestion drops the subject's events stamped at or
// before the cutoff from the moment the request commits (not only once the job ran) for as long as
// ingestion accepts events that old: 30 days after the cutoff.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import { isStorageUnavailable } from '../../../db/constraint-errors.js';
import { inTransaction } from '../../../db/transaction.js';
import type { AppAccess } from '../../../platform/app-access.js';
import { AppError, notFound } from '../../../platform/errors.js';
import { newId } from '../../../platform/ids.js';
import type { Principal } from '../../../platform/principal.js';
import type { SecretBox } from '../../../platform/secret-box.js';
import type { Executor } from '../../../db/transaction.js';
import { environmentSlugOf } from '../../core/apps/index.js';
import { authorityOf, type JournalService, type JournalSource } from '../../core/journal/index.js';
import { telemetryReadModel, telemetrySubjectErasure } from '../ingestion/index.js';
import { enqueueErasure } from './erasure.jobs.js';
import * as repo from './erasure.repository.js';
import type { SubjectErasuresTable } from './erasure.table.js';

const { iterationsOfSubject } = telemetryReadModel;
const { eraseSubjectEvents, purgeExpiredTombstones, subjectHashOf, writeTombstone } = telemetrySubjectErasure;

export interface ErasureReceipt {
  id: string;
  status: 'pending' | 'completed';
  requestedAt: string;
  completedAt: string | null;
  cutoff: string;
}

export interface ErasureService {
  request(
    principal: Principal,
    input: { appId: string; env: string; namespace: 'targetingKey'; subjectId: string },
    source?: JournalSource,
  ): Promise<ErasureReceipt>;
  get(principal: Principal, appId: string, env: string, id: string): Promise<ErasureReceipt>;
  /** The job: erase the subject of one request (idempotent: a second run finds nothing to delete). */
  run(erasureId: string): Promise<void>;
}

export interface ErasureServiceDeps {
  db: Kysely<Database>;
  access: AppAccess;
  secret: string;
  /** Seals the subject until the job has run (purpose `subject-erasure`). */
  box: SecretBox;
  now: () => number;
  /** Requests and completions are journaled by receipt id: never the subject, nor anything derived from it. */
  journal?: Pick<JournalService, 'record'>;
  /** Experiment aggregates holding the subject are recomputed without it before the receipt completes. */
  aggregates?: {
    queueAfterErasure(
      trx: Executor,
      envId: string,
      iterations: { experimentId: string; iterationId: string }[],
    ): Promise<string[]>;
    execute(runId: string): Promise<void>;
  };
}

const receiptOf = (
  row: Pick<SubjectErasuresTable, 'id' | 'status' | 'requested_at' | 'completed_at' | 'cutoff'>,
): ErasureReceipt => ({
  id: row.id,
  status: row.status as ErasureReceipt['status'],
  requestedAt: row.requested_at,
  completedAt: row.completed_at,
  cutoff: row.cutoff,
});

export function createErasureService(deps: ErasureServiceDeps): ErasureService {
  return {
    async request(principal, input, source = 'api') {
      const { app, env } = await deps.access.requireEnv(principal, input.appId, input.env, 'change');
      const now = deps.now();
      const at = new Date(now).toISOString();
      // An opaque id: random, never derived from the subject.
      const row = {
        id: newId('ers'),
        app_id: app.id,
        env_id: env.id,
        status: 'pending',
        subject_sealed: deps.box.seal(input.subjectId),
        cutoff: at,
        requested_at: at,
        completed_at: null,
      };
      try {
        await inTransaction(deps.db, async (trx) => {
          await repo.insertErasure(trx, row);
          await writeTombstone(trx, {
            envId: env.id,
            subjectHash: subjectHashOf(deps.secret, env.id, input.subjectId),
            cutoff: now,
          });
          await enqueueErasure(trx, row.id, deps.now);
          await deps.journal?.record(trx, {
            appId: app.id,
            env: env.slug,
            operation: 'erasure.request',
            source,
            resourceType: 'subject_erasure',
            resourceId: row.id,
            authority: authorityOf(principal),
            beforeVersion: null,
            afterVersion: null,
            diff: [],
            context: { namespace: input.namespace, cutoff: at },
          });
        });
      } catch (error) {
        // Storage that cannot take the request now is a 503 the caller retries; anything else is a
        // defect and answers 500 (both keep the cause for the error log).
        if (!isStorageUnavailable(error)) throw error;
        throw new AppError(503, 'service_unavailable', 'The erasure could not be recorded; nothing was changed.', {
          resolution: 'Retry the request after Retry-After seconds.',
          headers: { 'retry-after': '1' },
          cause: error,
        });
      }
      return receiptOf(row);
    },

    async get(principal, appId, envSlug, id) {
      const { env } = await deps.access.requireEnv(principal, appId, envSlug, 'read');
      const row = await repo.findReceipt(deps.db, env.id, id);
      if (!row) throw notFound(`Erasure ${id}`);
      return receiptOf(row);
    },

    async run(erasureId) {
      const row = await repo.findErasure(deps.db, erasureId);
      if (!row || row.status === 'completed' || row.subject_sealed === null) return;
      const subject = deps.box.open(row.subject_sealed);
      const runs = await inTransaction(deps.db, async (trx) => {
        const iterations = deps.aggregates ? await iterationsOfSubject(trx, row.env_id, subject) : [];
        await eraseSubjectEvents(trx, row.env_id, subject, deps.now());
        // Recomputes commit with the deletion, so a crash after it still leaves them queued as jobs.
        return deps.aggregates ? deps.aggregates.queueAfterErasure(trx, row.env_id, iterations) : [];
      });
      for (const runId of runs) await deps.aggregates!.execute(runId);
      await inTransaction(deps.db, async (trx) => {
        // The subject is forgotten once its events and every aggregate holding it are gone.
        const completedAt = new Date(deps.now()).toISOString();
        await repo.completeErasure(trx, erasureId, completedAt);
        if (deps.journal) {
          await deps.journal.record(trx, {
            appId: row.app_id,
            env: await environmentSlugOf(trx, row.env_id),
            operation: 'erasure.complete',
            source: 'system',
            resourceType: 'subject_erasure',
            resourceId: erasureId,
            authority: { type: 'system' },
            beforeVersion: null,
            afterVersion: null,
            diff: [],
            context: { cutoff: row.cutoff, completedAt, experimentRuns: runs.length },
          });
        }
        await purgeExpiredTombstones(trx, deps.now());
      });
    },
  };
}
