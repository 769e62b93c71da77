// buildApp: the platform, then the four subsystems in their layers (docs/conventions.md), each
// composed in its folder: core, the delivery plane, experimentation, the telemetry plane. No logic
// of its own: settings and their defaults come from config.ts, timers live in the jobs.
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { appSettingsOf, type AppConfig } from './config.js';
import type { Database } from './db/database.js';
import type { DbHandle } from './db/create-db.js';
import { databaseReadiness } from './db/readiness.js';
import { JobRunner, ProcessTasks, registerJobsMaintenance } from './jobs/index.js';
import { registerConsole } from './platform/console-static.js';
import { createHttpServer } from './platform/http-server.js';
import { keepTickShape, TICK_SHAPE_REFRESH_MS } from './platform/tick-shape.js';
import { composeAuthority, composeCore } from './modules/core/compose.js';
import { composeDelivery } from './modules/delivery/compose.js';
import { composeExperimentation } from './modules/experimentation/compose.js';
import { composeTelemetry } from './modules/telemetry/compose.js';
import { OFREP_PREFIX, ofrepFrameworkErrors } from './modules/delivery/ofrep/index.js';

export interface AppDeps {
  db: Kysely<Database>;
  /** The database handle: its PostgreSQL pool carries change notifications between processes. */
  dbHandle: DbHandle;
  /** Suffix of the notification channel, so test schemas sharing one server do not hear each other. */
  notifyChannel?: string;
  /**
   * How often delivery polls the store for configuration changes a notification may have missed
   * (default in config.ts). null turns the polling off, so only notifications carry changes between
   * processes: a test proves LISTEN/NOTIFY with it.
   */
  configPollIntervalMs?: number | null;
  config: AppConfig;
  /** Where logs go (tests capture them); defaults to stdout. */
  logStream?: NodeJS.WritableStream;
  /** The clock of time-bound records (idempotency retention and replay window); tests move it. */
  now?: () => number;
  /** The built web console served at /console (default console/dist); null or a folder without a build: /console answers 404. */
  consoleDir?: string | null;
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The background-job runner: modules register their handlers on it while the app is built. It
     * starts polling when the server listens (never under app.inject, where tests call runDue()) and
     * stops when the app closes.
     */
    jobs: JobRunner;
    /** Writes the config syncs counted so far now, instead of at the meter's next tick (tests read the counts). */
    configSyncs: { flush(): Promise<void> };
  }
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const settings = appSettingsOf(deps.config, deps.configPollIntervalMs);
  const { db, dbHandle, now } = deps;
  const http = await createHttpServer({
    settings,
    logStream: deps.logStream,
    database: dbHandle,
    publicPrefix: { prefix: OFREP_PREFIX, frameworkErrors: ofrepFrameworkErrors },
  });
  const { app, metrics } = http;

  const jobs = new JobRunner({
    db,
    now,
    concurrency: Math.max(1, settings.jobs.concurrency),
    pollIntervalMs: settings.jobs.pollIntervalMs,
    log: app.log,
  });
  app.decorate('jobs', jobs);
  registerJobsMaintenance(jobs, db, now);
  // ENSIGN_JOBS_CONCURRENCY=0 keeps this process out of background work (it still enqueues).
  if (settings.jobs.concurrency > 0) app.addHook('onListen', async () => jobs.start());
  const tasks = new ProcessTasks(app.log);
  // One of nextTick's tick objects kept alive, so full collections do not slow every tick (decision 0066).
  app.addHook('onListen', keepTickShape);
  tasks.every('platform.keep-tick-shape', TICK_SHAPE_REFRESH_MS, keepTickShape);
  const stopHearingFaults = dbHandle.onConnectionError((err) =>
    app.log.error(
      { err },
      'lost a database connection; the next query opens a new one (/readyz answers 503 while the database is unreachable)',
    ),
  );

  const core = await composeCore(app, {
    db,
    dbHandle,
    settings,
    notifyChannel: deps.notifyChannel,
    now,
    metrics,
    tasks,
    ready: databaseReadiness(db),
    authenticate: http.authenticate,
  });
  const delivery = await composeDelivery(app, { core, settings, metrics, now });
  app.decorate('configSyncs', { flush: delivery.flushSyncCounts });
  const experimentation = await composeExperimentation(app, { core, settings, jobs, now });
  await composeAuthority(app, core, {
    settings,
    now,
    servedVersion: delivery.servedVersion,
    changeKinds: experimentation.changeKinds,
  });
  const telemetry = await composeTelemetry(app, {
    core,
    dbHandle,
    settings,
    jobs,
    now: now ?? Date.now,
    clientVisibility: delivery.clientVisibility,
    aggregates: experimentation.aggregation,
    rolloutPlans: experimentation.rollouts,
  });
  await registerConsole(app, deps.consoleDir);

  app.addHook('onClose', async () => {
    tasks.stop();
    await jobs.stop();
    await telemetry.close();
    stopHearingFaults();
    // The last usage counts are best effort: a database already gone must not keep the app from closing.
    await core.flushUsage().catch(() => undefined);
    await delivery.close();
    await core.close();
  });
  return app;
}
