// buildApp: platform plugins, then every module's routes. No logic of its own.
import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { sql, type Kysely } from 'kysely';
import { DEFAULT_FAST_LANE, DEFAULT_HTTP_SETTINGS, type EnsignConfig } from './config.js';
import type { Database } from './db/database.js';
import type { DbHandle } from './db/create-db.js';
import { createChangeNotifier } from './db/notifications.js';
import { registerAuthentication } from './platform/authenticate.js';
import { registerBodyLimits } from './platform/body-limit.js';
import { createFastLane, type FastLaneRouteInfo, type FastLaneStats } from './platform/fast-lane.js';
import { ErrorBody, LegacyErrorBody } from './platform/error-schemas.js';
import { clientErrorHandler, frameworkErrorHandler, registerErrorHandling } from './platform/error-handler.js';
import { createIdempotencyService } from './platform/idempotency.js';
import { loggerOptions } from './platform/logging.js';
import { createMetrics, registerRequestMetrics } from './platform/prometheus-metrics.js';
import { metricsRoutes as prometheusRoutes } from './platform/prometheus-route.js';
import { registerOpenApi } from './platform/openapi.js';
import { buildSerializersOnFirstUse } from './platform/response-serializers.js';
import { registerConsole } from './platform/console-static.js';
import { registerRequestIds, requestIdOf } from './platform/request-id.js';
import { createSecretBox } from './platform/secret-box.js';
import { createValidatorCompiler, registerValidation } from './platform/validation.js';
import { appsRoutes, createAppsService, createInvitationsService, createMembersService, invitationsRoutes, membersRoutes } from './modules/core/apps/index.js';
import { authRoutes, createAuthService, createCredentialResolver } from './modules/core/auth/index.js';
import { discoveryRoutes } from './modules/core/discovery/index.js';
import { createJournalService, journalRoutes } from './modules/core/journal/index.js';
import { createKeysService, keysRoutes } from './modules/core/keys/index.js';
import { createConfigStateStore, createConfigMutator, createVersionsService, versionsRoutes } from './modules/core/config/index.js';
import { createFlagsService, flagsRoutes } from './modules/core/flags/index.js';
import { createDeliveryService, deliveryRoutes } from './modules/delivery/config-delivery/index.js';
import { entityTagKeyOf } from './platform/entity-tag.js';
import { PUBLIC_CORS_RESPONSE_HEADERS } from './platform/public-cors.js';
import { createEvaluationSource, evaluationRoutes } from './modules/delivery/evaluation/index.js';
import { createStreamLinks, createStreamTokens, OFREP_PREFIX, ofrepRoutes, ofrepFrameworkErrors } from './modules/delivery/ofrep/index.js';
import { advancedRoutes, createAdvancedService } from './modules/delivery/sdk-document/index.js';
import { JobRunner, registerJobsMaintenance } from './jobs/index.js';
import { createMetricsService as createExperimentMetricsService, metricsRoutes as experimentMetricsRoutes } from './modules/experimentation/experiment-metrics/index.js';
import { createLayersService, layerChangeKinds, layersRoutes } from './modules/experimentation/layers/index.js';
import { createHoldoutsService, holdoutChangeKinds, holdoutsRoutes } from './modules/experimentation/holdouts/index.js';
import {
  aggregationRoutes, analysisInputsRoutes, createAggregationService, createAnalysisInputsService, createExperimentsService, experimentChangeKinds, experimentsRoutes,
  experimentsReadModel, registerAggregationJobs,
} from './modules/experimentation/experiments/index.js';
import { createTelemetryService, flagEvaluationsOf, inlineGroupStore, threadGroupStore, registerTelemetryRetention, telemetryRoutes } from './modules/telemetry/ingestion/index.js';
import { createInsightsService, insightsRoutes } from './modules/telemetry/insights/index.js';
import { cleanupRoutes, createCleanupService } from './modules/telemetry/cleanup/index.js';
import { DEFAULT_INSIGHTS_QUERIES_PER_MINUTE, DEFAULT_TELEMETRY_EVENTS_PER_SECOND } from './config.js';
import { andThen } from './platform/maybe-async.js';
import { createRollbacksService, rollbacksRoutes } from './modules/core/rollbacks/index.js';
import { authorityRoutes, createAuthorityService } from './modules/core/authority/index.js';
import { createErasureService, erasureRoutes, registerErasureJobs } from './modules/telemetry/erasure/index.js';
import { createRolloutsService, rolloutChangeKinds, rolloutsRoutes } from './modules/experimentation/rollouts/index.js';
import { createDeliveryWorker, createExportsService, createWebhookSender, DEFAULT_EXPORT_POLICY, exportsRoutes, registerBackfillJobs, registerDeliveryJobs } from './modules/telemetry/exports/index.js';

export interface AppDeps {
  db: Kysely<Database>;
  /** The database handle: its PostgreSQL pool carries change notifications between processes. */
  dbHandle: DbHandle;
  /** Suffix of the notification channel, so test schemas sharing one server do not hear each other. */
  notifyChannel?: string;
  /**
   * How often delivery polls the store for configuration changes a notification may have missed
   * (default 500 ms). null turns the polling off, so only notifications carry changes between
   * processes: a test proves LISTEN/NOTIFY with it.
   */
  configPollIntervalMs?: number | null;
  config: Pick<EnsignConfig, 'secret' | 'quotas' | 'defaultPlan' | 'logLevel' | 'metricsToken'> & Partial<Pick<EnsignConfig, 'jobs' | 'telemetryEventsPerSecond' | 'insightsQueriesPerMinute' | 'telemetryWriter' | 'exportPolicy' | 'http' | 'fastLane'>>;
  /** Where logs go (tests capture them); defaults to stdout. */
  logStream?: NodeJS.WritableStream;
  /** The clock of time-bound records (idempotency retention and replay window); tests move it. */
  now?: () => number;
  /** The built web console served at /console (default console/dist); null or a folder without a build: /console answers 404. */
  consoleDir?: string | null;
}

export const DEFAULT_BODY_LIMIT = 1024 * 1024;
const DEFAULT_JOB_SETTINGS: EnsignConfig['jobs'] = { concurrency: 2, pollIntervalMs: 1000 };
/** Flag keys of up to 128 characters travel in OFREP paths, percent-encoded (':' is 3 characters). */
const MAX_PARAM_LENGTH = 512;

declare module 'fastify' {
  interface FastifyInstance {
    /** What the fast lane (platform/fast-lane.ts) serves and has answered. */
    fastLane: { stats: FastLaneStats; routes(): readonly FastLaneRouteInfo[] };
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
  const lane = createFastLane({ maxParamLength: MAX_PARAM_LENGTH, enabled: deps.config.fastLane ?? DEFAULT_FAST_LANE });
  const timeouts = deps.config.http ?? DEFAULT_HTTP_SETTINGS;
  const app = Fastify({
    // Slow clients are cut off: a request (headers and body) must arrive within requestTimeout.
    requestTimeout: timeouts.requestTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    http: {
      requestTimeout: timeouts.requestTimeoutMs,
      headersTimeout: timeouts.headersTimeoutMs,
      // Node checks those timeouts on this interval (30 s by default, which would double a short timeout).
      connectionsCheckingInterval: Math.min(1000, timeouts.headersTimeoutMs),
    },
    logger: loggerOptions(deps.config.logLevel, deps.logStream),
    genReqId: requestIdOf,
    bodyLimit: DEFAULT_BODY_LIMIT,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    serverFactory: lane.serverFactory,
    trustProxy: false,
    ajv: { customOptions: { removeAdditional: false } },
    schemaController: { compilersFactory: { buildSerializer: buildSerializersOnFirstUse } },
    frameworkErrors: frameworkErrorHandler({ [`${OFREP_PREFIX}/`]: ofrepFrameworkErrors }),
    clientErrorHandler: clientErrorHandler({ [`${OFREP_PREFIX}/`]: PUBLIC_CORS_RESPONSE_HEADERS }),
  }).withTypeProvider<TypeBoxTypeProvider>();
  lane.watch(app);

  registerRequestIds(app);
  const metrics = createMetrics(deps.dbHandle);
  registerRequestMetrics(app, metrics.requests);
  const compile = createValidatorCompiler();
  registerValidation(app, compile);
  registerErrorHandling(app);
  registerBodyLimits(app);
  app.addSchema(ErrorBody);
  app.addSchema(LegacyErrorBody);
  await registerOpenApi(app);

  const { db, config } = deps;
  const jobSettings = config.jobs ?? DEFAULT_JOB_SETTINGS;
  const jobs = new JobRunner({ db, now: deps.now, concurrency: Math.max(1, jobSettings.concurrency), pollIntervalMs: jobSettings.pollIntervalMs, log: app.log });
  app.decorate('jobs', jobs);
  registerJobsMaintenance(jobs, db, deps.now);
  // ENSIGN_JOBS_CONCURRENCY=0 keeps this process out of background work (it still enqueues).
  if (jobSettings.concurrency > 0) app.addHook('onListen', async () => jobs.start());
  const stopHearingFaults = deps.dbHandle.onConnectionError((err) =>
    app.log.error({ err }, 'lost a database connection; the next query opens a new one (/readyz answers 503 while the database is unreachable)'));
  const journal = createJournalService(db);
  const auth = createAuthService(db, config.defaultPlan, deps.now);
  // Apps issue an app's first keys with the keys module's issueKey; the keys service then checks
  // access through apps: no cycle.
  const apps = createAppsService({ db, journal, planOf: auth.planOf, quotas: config.quotas });
  // Revocations travel on a channel of their own, so config-change listeners never see them.
  const keyEvents = createChangeNotifier(deps.dbHandle, `keys${deps.notifyChannel ? `_${deps.notifyChannel}` : ''}`);
  const keys = createKeysService(db, journal, apps, { revocations: keyEvents });
  const idempotency = createIdempotencyService(db, createSecretBox(config.secret), deps.now);
  const resolver = createCredentialResolver(db, keys, deps.now);
  registerAuthentication(app, resolver);
  lane.attach(app, { resolver, compile });
  app.decorate('fastLane', { stats: lane.stats, routes: lane.routes });
  const notifier = createChangeNotifier(deps.dbHandle, deps.notifyChannel);
  const configStore = createConfigStateStore(db, notifier, (err, change) => app.log.error({ err, change }, 'a configuration-change listener failed'));
  const mutator = createConfigMutator({ store: configStore, journal, secret: config.secret, requiredApprovals: apps.requiredApprovals });
  const flags = createFlagsService({ access: apps, store: configStore, mutator, planOf: auth.planOf, quotas: config.quotas });
  const versions = createVersionsService({ db, store: configStore, access: apps });
  const delivery = createDeliveryService({
    db, configStore, access: apps, planOf: auth.planOf, quotas: config.quotas, secret: config.secret, log: app.log, metrics: metrics.delivery, pollIntervalMs: deps.configPollIntervalMs,
  });

  const ready = async () => {
    try {
      await sql`select 1`.execute(db);
      return true;
    } catch {
      return false;
    }
  };

  await app.register(discoveryRoutes, { ready, quotas: config.quotas });
  await app.register(prometheusRoutes, { metrics, token: config.metricsToken });
  await app.register(authRoutes, { auth });
  await app.register(appsRoutes, { db, apps, idempotency });
  const invitations = createInvitationsService({ db, access: apps, journal, now: deps.now ?? Date.now });
  await app.register(membersRoutes, { db, members: createMembersService({ db, access: apps, journal }), invitations, idempotency });
  await app.register(invitationsRoutes, { db, invitations });
  await app.register(keysRoutes, { keys, idempotency });
  await app.register(journalRoutes, { journal, access: apps });
  await app.register(flagsRoutes, { flags, idempotency });
  await app.register(versionsRoutes, { versions });
  const rollbacks = createRollbacksService({ access: apps, store: configStore, mutator });
  await app.register(rollbacksRoutes, { rollbacks, idempotency });
  const authority = createAuthorityService({
    db, access: apps, auth, store: configStore, mutator, rollbacks, planOf: auth.planOf, quotas: config.quotas, now: deps.now ?? Date.now,
    servedVersion: async (target) => (await delivery.snapshot(target, 'server')).version,
  });
  await app.register(deliveryRoutes, { delivery });
  app.decorate('configSyncs', { flush: () => delivery.flushSyncCounts() });
  const evaluation = createEvaluationSource(delivery, { delivery: metrics.delivery, evaluation: metrics.evaluation });
  await app.register(evaluationRoutes, { source: evaluation });
  await app.register(ofrepRoutes, { source: evaluation, admit: delivery.admit, secret: config.secret, keyRevoked: async (grant) => !(await keys.isActive(grant.keyId)) });
  const advanced = createAdvancedService({ access: apps, store: configStore, delivery, tagKey: entityTagKeyOf(config.secret), log: app.log });
  await app.register(advancedRoutes, { advanced, streamLink: createStreamLinks(createStreamTokens(config.secret)) });
  const experimentMetrics = createExperimentMetricsService({ db, access: apps, journal });
  await app.register(experimentMetricsRoutes, { metrics: experimentMetrics, idempotency });
  const layers = createLayersService({ db, access: apps, journal });
  await app.register(layersRoutes, { layers, idempotency });
  // Holdouts ask which running experiments name a holdout through the experiments read model (no
  // service of experiments needed), and experiments then read holdouts: no cycle.
  const holdouts = createHoldoutsService({ db, access: apps, journal, usedBy: (executor, target, id) => experimentsReadModel.usingHoldout(executor, target.envId, id) });
  await app.register(holdoutsRoutes, { holdouts, idempotency });
  const experiments = createExperimentsService({ db, access: apps, journal, store: configStore, mutator, metrics: experimentMetrics, layers, holdouts, now: deps.now });
  await app.register(experimentsRoutes, { experiments, idempotency });
  await app.register(analysisInputsRoutes, { inputs: createAnalysisInputsService({ db, access: apps, metrics: experimentMetrics, now: deps.now }), idempotency });
  const aggregation = createAggregationService({ db, access: apps, metrics: experimentMetrics, secret: config.secret, now: deps.now });
  registerAggregationJobs(jobs, aggregation);
  await app.register(aggregationRoutes, { aggregation });
  const rollouts = createRolloutsService({ db, access: apps, mutator, rollbacks, metrics: experimentMetrics, results: aggregation, experiments: experimentsReadModel, journal, now: deps.now });
  await app.register(rolloutsRoutes, { rollouts, idempotency });
  // Experiments, layers, holdouts and rollout plans in protected environments go through the
  // authority workflow as change kinds of their own (decision 0029); its routes name them all.
  authority.register(...experimentChangeKinds(experiments), ...layerChangeKinds(layers), ...holdoutChangeKinds(holdouts), ...rolloutChangeKinds(rollouts));
  await app.register(authorityRoutes, { authority });
  const clock = deps.now ?? Date.now;
  const sqliteFile = deps.dbHandle.sqliteFile;
  const telemetryGroups = sqliteFile && config.telemetryWriter !== 'inline' ? threadGroupStore(`sqlite://${sqliteFile}`) : inlineGroupStore(db);
  const telemetry = createTelemetryService({
    db,
    groups: telemetryGroups,
    now: clock,
    eventsPerSecond: config.telemetryEventsPerSecond ?? DEFAULT_TELEMETRY_EVENTS_PER_SECOND,
    tombstoneKey: config.secret,
    clientVisibility: (principal) => andThen(evaluation.current(principal), (set) => (flagKey: string) => set.visible(flagKey, 'client')),
  });
  await app.register(telemetryRoutes, { telemetry });
  registerTelemetryRetention(jobs, db, clock);
  const insights = createInsightsService({ db, access: apps, secret: config.secret, now: clock, queriesPerMinute: config.insightsQueriesPerMinute ?? DEFAULT_INSIGHTS_QUERIES_PER_MINUTE });
  await app.register(insightsRoutes, { insights });
  const cleanup = createCleanupService({
    access: apps,
    environmentsOf: (principal, appId) => apps.environments(principal, appId),
    store: configStore,
    journal,
    evaluations: { evaluations: (target, since, until) => flagEvaluationsOf(db, target.envId, Date.parse(since), Date.parse(until)) },
    rolloutPlans: rollouts,
    now: clock,
  });
  await app.register(cleanupRoutes, { cleanup });
  const exportPolicy = config.exportPolicy ?? DEFAULT_EXPORT_POLICY;
  const exportBox = createSecretBox(config.secret, 'export-signing-secret');
  const exportWorker = createDeliveryWorker({ db, policy: exportPolicy, box: exportBox, send: createWebhookSender(exportPolicy), now: clock, journal });
  registerDeliveryJobs(jobs, exportWorker);
  registerBackfillJobs(jobs, { db, worker: exportWorker, now: clock });
  const exportsService = createExportsService({ db, access: apps, policy: exportPolicy, box: exportBox, now: clock, journal });
  await app.register(exportsRoutes, { exports: exportsService, idempotency });
  const erasure = createErasureService({ db, access: apps, secret: config.secret, box: createSecretBox(config.secret, 'subject-erasure'), now: clock, aggregates: aggregation, journal });
  registerErasureJobs(jobs, erasure);
  await app.register(erasureRoutes, { erasure });
  await registerConsole(app, deps.consoleDir);

  const background = setInterval(() => {
    keys.flushUsage().catch((err) => app.log.warn({ err }, 'could not record key usage'));
    idempotency.purgeExpired().catch((err) => app.log.warn({ err }, 'could not purge idempotency records'));
  }, 5000);
  background.unref();
  app.addHook('onClose', async () => {
    clearInterval(background);
    await jobs.stop();
    await telemetryGroups.close();
    stopHearingFaults();
    await keys.flushUsage().catch(() => undefined);
    await delivery.close();
    await notifier.close();
    await keyEvents.close();
  });
  return app;
}
