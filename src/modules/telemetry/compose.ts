// The telemetry plane: ingestion, insights, cleanup, exports (webhook deliveries and backfills) and
// erasure, over core. What it needs of the planes beside it (which flags a client may see, the
// experiment aggregates an erasure recomputes, unfinished rollout plans) comes in as ports.
import type { FastifyInstance } from 'fastify';
import type { AppSettings } from '../../config.js';
import type { DbHandle } from '../../db/create-db.js';
import type { JobRunner } from '../../jobs/index.js';
import { createSecretBox } from '../../platform/secret-box.js';
import type { Core } from '../core/compose.js';
import { cleanupRoutes, createCleanupService } from './cleanup/index.js';
import { createErasureService, erasureRoutes, registerErasureJobs } from './erasure/index.js';
import {
  createDeliveryWorker,
  createExportsService,
  createWebhookSender,
  exportsRoutes,
  registerBackfillJobs,
  registerDeliveryJobs,
} from './exports/index.js';
import {
  createTelemetryService,
  flagEvaluationsOf,
  inlineGroupStore,
  registerTelemetryRetention,
  telemetryRoutes,
  threadGroupStore,
  type TelemetryServiceDeps,
} from './ingestion/index.js';
import { createInsightsService, insightsRoutes } from './insights/index.js';

type CleanupDeps = Parameters<typeof createCleanupService>[0];
type ErasureDeps = Parameters<typeof createErasureService>[0];

export interface TelemetryPlaneDeps {
  core: Pick<Core, 'db' | 'apps' | 'journal' | 'idempotency' | 'configStore'>;
  /** On a SQLite file, ingestion's transactions run on a writer thread of their own (unless told inline). */
  dbHandle: Pick<DbHandle, 'sqliteFile'>;
  settings: Pick<
    AppSettings,
    | 'secret'
    | 'telemetryEventsPerSecond'
    | 'insightsQueriesPerMinute'
    | 'telemetryWriter'
    | 'telemetryWriteLanes'
    | 'exportPolicy'
  >;
  jobs: JobRunner;
  now: () => number;
  clientVisibility: TelemetryServiceDeps['clientVisibility'];
  aggregates: NonNullable<ErasureDeps['aggregates']>;
  rolloutPlans: NonNullable<CleanupDeps['rolloutPlans']>;
}

export async function composeTelemetry(app: FastifyInstance, deps: TelemetryPlaneDeps) {
  const { core, settings, jobs, now } = deps;
  const { db, apps: access, journal, idempotency } = core;
  const sqliteFile = deps.dbHandle.sqliteFile;
  const groups =
    sqliteFile && settings.telemetryWriter !== 'inline'
      ? threadGroupStore(`sqlite://${sqliteFile}`, { tombstoneKey: settings.secret })
      : inlineGroupStore(db, { tombstoneKey: settings.secret });
  const telemetry = createTelemetryService({
    db,
    groups,
    now,
    eventsPerSecond: settings.telemetryEventsPerSecond,
    writeLanes: settings.telemetryWriteLanes,
    clientVisibility: deps.clientVisibility,
  });
  await app.register(telemetryRoutes, { telemetry });
  registerTelemetryRetention(jobs, db, now);
  const insights = createInsightsService({
    db,
    access,
    secret: settings.secret,
    now,
    queriesPerMinute: settings.insightsQueriesPerMinute,
  });
  await app.register(insightsRoutes, { insights });
  const cleanup = createCleanupService({
    access,
    environmentsOf: (principal, appId) => access.environments(principal, appId),
    store: core.configStore,
    journal,
    evaluations: {
      evaluations: (target, since, until) => flagEvaluationsOf(db, target.envId, Date.parse(since), Date.parse(until)),
    },
    rolloutPlans: deps.rolloutPlans,
    now,
  });
  await app.register(cleanupRoutes, { cleanup });
  const policy = settings.exportPolicy;
  const box = createSecretBox(settings.secret, 'export-signing-secret');
  const worker = createDeliveryWorker({ db, policy, box, send: createWebhookSender(policy), now, journal });
  registerDeliveryJobs(jobs, worker);
  registerBackfillJobs(jobs, { db, worker, now });
  await app.register(exportsRoutes, {
    exports: createExportsService({ db, access, policy, box, now, journal }),
    idempotency,
  });
  const erasure = createErasureService({
    db,
    access,
    secret: settings.secret,
    box: createSecretBox(settings.secret, 'subject-erasure'),
    now,
    aggregates: deps.aggregates,
    journal,
  });
  registerErasureJobs(jobs, erasure);
  await app.register(erasureRoutes, { erasure });
  return { close: () => groups.close() };
}
