import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import type { Executor } from '../../db/transaction.js';
import { isUniqueViolation } from '../../db/constraint-errors.js';
import type { QuotaSet, Plan } from '../../config.js';
import type { AppAccess } from '../../platform/app-access.js';
import { AppError, forbidden, notFound } from '../../platform/errors.js';
import { newId, nowIso } from '../../platform/ids.js';
import type { Principal, UserPrincipal } from '../../platform/principal.js';
import { authorityOf, type JournalService, type JournalSource } from '../journal/index.js';
import type { IssuedKey, KeysService } from '../keys/index.js';
import { canonicalEnvSlug, DEFAULT_ENVIRONMENTS, type App, type Environment } from './apps.model.js';
import * as repo from './apps.repository.js';

export interface CreatedApp {
  app: App;
  environments: Environment[];
  keys: IssuedKey[];
  adminKey: IssuedKey;
}

export interface AppWithEnvironments extends App {
  environments: Pick<Environment, 'id' | 'slug' | 'name'>[];
}

export interface AppsService extends AppAccess {
  create(trx: Executor, principal: UserPrincipal, input: { name: string; slug: string }, source: JournalSource): Promise<CreatedApp>;
  list(principal: UserPrincipal): Promise<AppWithEnvironments[]>;
  environments(principal: Principal, appId: string): Promise<Environment[]>;
}

export interface AppsDeps {
  db: Kysely<Database>;
  journal: JournalService;
  keys: () => KeysService;
  planOf: (userId: string, executor?: Executor) => Promise<Plan>;
  quotas: Record<Plan, QuotaSet>;
}

export function createAppsService({ db, journal, keys, planOf, quotas }: AppsDeps): AppsService {
  async function requireApp(principal: Principal, appId: string, executor: Executor = db) {
    const app = await repo.findApp(executor, appId);
    if (!app) throw notFound(`App ${appId}`);
    const allowed = principal.type === 'cli' ? app.owner_user_id === principal.userId : principal.appId === app.id;
    if (!allowed) throw forbidden(`This credential cannot access app ${appId}.`);
    return { id: app.id, ownerUserId: app.owner_user_id, slug: app.slug };
  }

  return {
    requireApp,
    async requireEnv(principal, appId, env, executor = db) {
      const app = await requireApp(principal, appId, executor);
      const row = await repo.findEnvironment(executor, app.id, canonicalEnvSlug(env));
      if (!row) throw notFound(`Environment ${env} of app ${appId}`);
      return { app, env: { id: row.id, appId: row.app_id, slug: row.slug, name: row.name } };
    },
    async create(trx, principal, input, source) {
      await repo.lockOwner(trx, principal.userId);
      const limit = quotas[await planOf(principal.userId, trx)].apps;
      if ((await repo.countAppsOfOwner(trx, principal.userId)) >= limit) {
        throw new AppError(429, 'app_quota_exceeded', `Your plan allows ${limit} apps.`, {
          resolution: 'Delete an app you no longer need or ask the operator for a larger plan.',
          metadata: { limit },
        });
      }
      const createdAt = nowIso();
      const app = { id: newId('app'), owner_user_id: principal.userId, name: input.name, slug: input.slug, created_at: createdAt };
      try {
        await repo.insertApp(trx, app);
      } catch (err) {
        if (isUniqueViolation(err)) throw new AppError(409, 'slug_conflict', `You already have an app with slug "${input.slug}".`, { resolution: 'Choose another slug.' });
        throw err;
      }
      const environments: Environment[] = [];
      const envKeys: IssuedKey[] = [];
      for (const d of DEFAULT_ENVIRONMENTS) {
        const env = { id: newId('env'), app_id: app.id, slug: d.slug, name: d.name, created_at: createdAt };
        await repo.insertEnvironment(trx, env);
        environments.push(repo.toEnvironment(env));
        envKeys.push(await keys().issue(trx, { appId: app.id, envId: env.id, envSlug: env.slug, type: 'sdk' }));
      }
      const adminKey = await keys().issue(trx, { appId: app.id, envId: null, envSlug: null, type: 'admin' });
      await journal.record(trx, {
        appId: app.id,
        env: null,
        operation: 'app.create',
        source,
        resourceType: 'app',
        resourceId: app.id,
        authority: authorityOf(principal),
        beforeVersion: null,
        afterVersion: null,
        diff: [
          { op: 'add', resourceType: 'app', key: app.id, path: '', after: { name: app.name, slug: app.slug } },
          ...environments.map((e) => ({ op: 'add' as const, resourceType: 'environment', key: e.slug, path: '', after: { id: e.id, name: e.name } })),
          ...[...envKeys, adminKey].map((k) => ({ op: 'add' as const, resourceType: 'key', key: k.id, path: '', after: { type: k.type, env: k.env, prefix: k.prefix } })),
        ],
      });
      return { app: repo.toApp(app), environments, keys: envKeys, adminKey };
    },
    async list(principal) {
      const apps = await repo.listAppsOfOwner(db, principal.userId);
      const envs = await repo.listEnvironments(db, apps.map((a) => a.id));
      return apps.map((a) => ({
        ...repo.toApp(a),
        environments: envs.filter((e) => e.app_id === a.id).map((e) => ({ id: e.id, slug: e.slug, name: e.name })),
      }));
    },
    async environments(principal, appId) {
      await requireApp(principal, appId);
      return (await repo.listEnvironments(db, [appId])).map(repo.toEnvironment);
    },
  };
}
