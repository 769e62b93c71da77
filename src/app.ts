// buildApp: platform plugins, then every module's routes. No logic of its own.
import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { sql, type Kysely } from 'kysely';
import { DEFAULT_HTTP_SETTINGS, type EnsignConfig } from './config.js';
import type { Database } from './db/database.js';
import type { DbHandle } from './db/create-db.js';
import { createChangeNotifier } from './db/notifications.js';
import { registerAuthentication } from './platform/authenticate.js';
import { createFastLane, type FastLaneStats } from './platform/fast-lane.js';
import { ErrorBody, LegacyErrorBody } from './platform/error-schemas.js';
import { frameworkErrorHandler, registerErrorHandling } from './platform/error-handler.js';
import { createIdempotencyService } from './platform/idempotency.js';
import { loggerOptions } from './platform/logging.js';
import { registerOpenApi } from './platform/openapi.js';
import { registerRequestIds, requestIdOf } from './platform/request-id.js';
import { createSecretBox } from './platform/secret-box.js';
import { createValidatorCompiler, registerValidation } from './platform/validation.js';
import { appsRoutes, createAppsService } from './modules/apps/index.js';
import { authRoutes, createAuthService, createCredentialResolver } from './modules/auth/index.js';
import { discoveryRoutes } from './modules/discovery/index.js';
import { createJournalService, journalRoutes } from './modules/journal/index.js';
import { createKeysService, keysRoutes, type KeysService } from './modules/keys/index.js';
import { createConfigStateStore, createConfigMutator, createVersionsService, versionsRoutes } from './modules/versions/index.js';
import { createFlagsService, flagsRoutes } from './modules/flags/index.js';
import { createDeliveryService, deliveryRoutes, entityTagKeyOf } from './modules/delivery/index.js';
import { createEvaluationSource, evaluationRoutes } from './modules/evaluation/index.js';
import { OFREP_PREFIX, ofrepRoutes, sendOfrepError } from './modules/ofrep/index.js';
import { advancedRoutes, createAdvancedService } from './modules/advanced/index.js';

export interface AppDeps {
  db: Kysely<Database>;
  /** The database handle: its PostgreSQL pool carries change notifications between processes. */
  dbHandle: DbHandle;
  /** Suffix of the notification channel, so test schemas sharing one server do not hear each other. */
  notifyChannel?: string;
  config: Pick<EnsignConfig, 'secret' | 'quotas' | 'defaultPlan' | 'logLevel'> & Partial<Pick<EnsignConfig, 'http'>>;
  /** Where logs go (tests capture them); defaults to stdout. */
  logStream?: NodeJS.WritableStream;
  /** The clock of time-bound records (idempotency retention and replay window); tests move it. */
  now?: () => number;
}

export const DEFAULT_BODY_LIMIT = 1024 * 1024;
/** Flag keys of up to 128 characters travel in OFREP paths, percent-encoded (':' is 3 characters). */
const MAX_PARAM_LENGTH = 512;

declare module 'fastify' {
  interface FastifyInstance {
    /** What the fast lane (platform/fast-lane.ts) has answered and replayed. */
    fastLane: FastLaneStats;
  }
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const lane = createFastLane({ maxParamLength: MAX_PARAM_LENGTH });
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
    frameworkErrors: frameworkErrorHandler({ [`${OFREP_PREFIX}/`]: sendOfrepError }),
  }).withTypeProvider<TypeBoxTypeProvider>();

  registerRequestIds(app);
  const compile = createValidatorCompiler();
  registerValidation(app, compile);
  registerErrorHandling(app);
  app.addSchema(ErrorBody);
  app.addSchema(LegacyErrorBody);
  await registerOpenApi(app);

  const { db, config } = deps;
  const stopHearingFaults = deps.dbHandle.onConnectionError((err) =>
    app.log.error({ err }, 'lost a database connection; the next query opens a new one (/readyz answers 503 while the database is unreachable)'));
  const journal = createJournalService(db);
  const auth = createAuthService(db, config.defaultPlan, deps.now);
  let keys: KeysService;
  const apps = createAppsService({ db, journal, keys: () => keys, planOf: auth.planOf, quotas: config.quotas });
  // Revocations travel on a channel of their own, so config-change listeners never see them.
  const keyEvents = createChangeNotifier(deps.dbHandle, `keys${deps.notifyChannel ? `_${deps.notifyChannel}` : ''}`);
  keys = createKeysService(db, journal, apps, { revocations: keyEvents });
  const idempotency = createIdempotencyService(db, createSecretBox(config.secret), deps.now);
  const resolver = createCredentialResolver(db, keys);
  registerAuthentication(app, resolver);
  lane.attach(app, { resolver, compile });
  app.decorate('fastLane', lane.stats);
  const notifier = createChangeNotifier(deps.dbHandle, deps.notifyChannel);
  const configStore = createConfigStateStore(db, notifier);
  const mutator = createConfigMutator({ store: configStore, journal, secret: config.secret });
  const flags = createFlagsService({ access: apps, store: configStore, mutator, planOf: auth.planOf, quotas: config.quotas });
  const versions = createVersionsService({ db, store: configStore, access: apps });
  const delivery = createDeliveryService({ db, configStore, access: apps, planOf: auth.planOf, quotas: config.quotas, secret: config.secret, log: app.log });

  const ready = async () => {
    try {
      await sql`select 1`.execute(db);
      return true;
    } catch {
      return false;
    }
  };

  await app.register(discoveryRoutes, { ready, quotas: config.quotas });
  await app.register(authRoutes, { auth });
  await app.register(appsRoutes, { apps, idempotency });
  await app.register(keysRoutes, { keys, idempotency });
  await app.register(journalRoutes, { journal, access: apps });
  await app.register(flagsRoutes, { flags, idempotency });
  await app.register(versionsRoutes, { versions });
  await app.register(deliveryRoutes, { delivery });
  const evaluation = createEvaluationSource(delivery);
  await app.register(evaluationRoutes, { source: evaluation });
  await app.register(ofrepRoutes, { source: evaluation, admit: delivery.admit, secret: config.secret, keyRevoked: async (grant) => !(await keys.isActive(grant.keyId)) });
  const advanced = createAdvancedService({ access: apps, store: configStore, delivery, tagKey: entityTagKeyOf(config.secret), log: app.log });
  await app.register(advancedRoutes, { advanced });

  const background = setInterval(() => {
    keys.flushUsage().catch((err) => app.log.warn({ err }, 'could not record key usage'));
    idempotency.purgeExpired().catch((err) => app.log.warn({ err }, 'could not purge idempotency records'));
  }, 5000);
  background.unref();
  app.addHook('onClose', async () => {
    clearInterval(background);
    stopHearingFaults();
    await keys.flushUsage().catch(() => undefined);
    await delivery.close();
    await notifier.close();
    await keyEvents.close();
  });
  return app;
}
