// The core subsystem: auth, apps, keys, journal, the configuration state, flags, versions,
// rollbacks, discovery and authority. composeCore builds its services and registers its routes;
// authority's routes come last (composeAuthority), once the other subsystems have registered the
// change kinds it proposes and the delivery plane can say which version it serves.
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { AppSettings } from '../../config.js';
import type { DbHandle } from '../../db/create-db.js';
import type { Database } from '../../db/database.js';
import { createChangeNotifier } from '../../db/notifications.js';
import type { ProcessTasks } from '../../jobs/index.js';
import { createIdempotencyService } from '../../platform/idempotency.js';
import type { CredentialResolver } from '../../platform/principal.js';
import { metricsRoutes as prometheusRoutes } from '../../platform/prometheus-route.js';
import type { Metrics } from '../../platform/prometheus-metrics.js';
import { createSecretBox } from '../../platform/secret-box.js';
import {
  appsRoutes,
  createAppsService,
  createInvitationsService,
  createMembersService,
  environmentSlugsOf,
  invitationsRoutes,
  membersRoutes,
} from './apps/index.js';
import { authRoutes, createAuthService, createCredentialResolver } from './auth/index.js';
import { authorityRoutes, createAuthorityService, type ChangeKindHandler } from './authority/index.js';
import {
  createConfigMutator,
  createConfigStateStore,
  createVersionsService,
  versionsRoutes,
  type EnvironmentTarget,
} from './config/index.js';
import { discoveryRoutes } from './discovery/index.js';
import { createFlagsService, flagsRoutes } from './flags/index.js';
import { createJournalService, journalRoutes } from './journal/index.js';
import { createKeysService, keysRoutes } from './keys/index.js';
import { createRollbacksService, rollbacksRoutes } from './rollbacks/index.js';

export interface CoreDeps {
  db: Kysely<Database>;
  dbHandle: DbHandle;
  settings: Pick<
    AppSettings,
    'secret' | 'quotas' | 'defaultPlan' | 'passwordScryptCost' | 'metricsToken' | 'processTasksIntervalMs'
  >;
  /** Suffix of the notification channels, so test schemas sharing one server do not hear each other. */
  notifyChannel?: string;
  now?: () => number;
  metrics: Metrics;
  tasks: ProcessTasks;
  ready: () => Promise<boolean>;
  /** Installs authentication with core's resolver, before any route is registered. */
  authenticate(resolver: CredentialResolver): void;
}

export async function composeCore(app: FastifyInstance, deps: CoreDeps) {
  const { db, settings } = deps;
  const channel = (name: string) => `${name}${deps.notifyChannel ? `_${deps.notifyChannel}` : ''}`;
  const journal = createJournalService(db);
  const auth = createAuthService(db, settings, deps.now);
  // Apps issue an app's first keys with the keys module's issueKey; the keys service then checks
  // access through apps: no cycle.
  const apps = createAppsService({ db, journal, planOf: auth.planOf, quotas: settings.quotas });
  // Revocations travel on a channel of their own, so config-change listeners never see them.
  const keyEvents = createChangeNotifier(deps.dbHandle, channel('keys'));
  const keys = createKeysService(db, journal, apps, { revocations: keyEvents, environmentSlugs: environmentSlugsOf });
  const idempotency = createIdempotencyService(db, createSecretBox(settings.secret), deps.now);
  deps.authenticate(createCredentialResolver(db, keys, deps.now));
  deps.tasks.every('keys.flush-usage', settings.processTasksIntervalMs, () => keys.flushUsage());
  deps.tasks.every('idempotency.purge-expired', settings.processTasksIntervalMs, () => idempotency.purgeExpired());

  const notifier = createChangeNotifier(deps.dbHandle, deps.notifyChannel);
  const configStore = createConfigStateStore(db, notifier, (err, change) =>
    app.log.error({ err, change }, 'a configuration-change listener failed'),
  );
  const mutator = createConfigMutator({
    store: configStore,
    journal,
    secret: settings.secret,
    requiredApprovals: apps.requiredApprovals,
  });
  const flags = createFlagsService({
    access: apps,
    store: configStore,
    mutator,
    planOf: auth.planOf,
    quotas: settings.quotas,
  });
  const versions = createVersionsService({ db, store: configStore, access: apps });
  const rollbacks = createRollbacksService({ access: apps, store: configStore, mutator });
  const invitations = createInvitationsService({ db, access: apps, journal, now: deps.now ?? Date.now });

  await app.register(discoveryRoutes, { ready: deps.ready, quotas: settings.quotas });
  await app.register(prometheusRoutes, { metrics: deps.metrics, token: settings.metricsToken });
  await app.register(authRoutes, { auth });
  await app.register(appsRoutes, { db, apps, idempotency });
  await app.register(membersRoutes, {
    db,
    members: createMembersService({ db, access: apps, journal }),
    invitations,
    idempotency,
  });
  await app.register(invitationsRoutes, { db, invitations });
  await app.register(keysRoutes, { keys, idempotency });
  await app.register(journalRoutes, { journal, access: apps });
  await app.register(flagsRoutes, { flags, idempotency });
  await app.register(versionsRoutes, { versions });
  await app.register(rollbacksRoutes, { rollbacks, idempotency });

  return {
    db,
    auth,
    apps,
    keys,
    journal,
    idempotency,
    configStore,
    mutator,
    rollbacks,
    /** Writes the key usage counted in memory (the last flush, at close). */
    flushUsage: () => keys.flushUsage(),
    async close() {
      await notifier.close();
      await keyEvents.close();
    },
  };
}

export type Core = Awaited<ReturnType<typeof composeCore>>;

/** Four eyes over protected environments (decision 0029): its routes name every change kind registered. */
export async function composeAuthority(
  app: FastifyInstance,
  core: Core,
  deps: {
    settings: Pick<AppSettings, 'quotas'>;
    now?: () => number;
    /** The version delivery serves to server SDKs, so a proposal shows what it would replace. */
    servedVersion: (target: EnvironmentTarget) => Promise<number>;
    changeKinds: ChangeKindHandler[];
  },
): Promise<void> {
  const authority = createAuthorityService({
    db: core.db,
    access: core.apps,
    auth: core.auth,
    store: core.configStore,
    mutator: core.mutator,
    rollbacks: core.rollbacks,
    planOf: core.auth.planOf,
    quotas: deps.settings.quotas,
    now: deps.now ?? Date.now,
    servedVersion: deps.servedVersion,
  });
  authority.register(...deps.changeKinds);
  await app.register(authorityRoutes, { authority });
}
