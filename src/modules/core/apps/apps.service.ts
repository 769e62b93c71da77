import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import type { Executor } from '../../../db/transaction.js';
import { isUniqueViolation } from '../../../db/constraint-errors.js';
import type { QuotaSet, Plan } from '../../../config.js';
import type { AppAccess, AppRef, Permission, Role } from '../../../platform/app-access.js';
import { AppError, forbidden, notFound } from '../../../platform/errors.js';
import { newId, nowIso } from '../../../platform/ids.js';
import type { Principal, UserPrincipal } from '../../../platform/principal.js';
import { lockUser } from '../auth/index.js';
import { authorityOf, type JournalService, type JournalSource } from '../journal/index.js';
import { issueKey, type IssuedKey } from '../keys/index.js';
import { canonicalEnvSlug, DEFAULT_ENVIRONMENTS, type App, type Environment } from './apps.model.js';
import * as repo from './apps.repository.js';
import * as members from './members.repository.js';
import { isRole, permissionDenied, permissionsOf } from './roles.js';

export interface CreatedApp {
  app: App;
  environments: Environment[];
  keys: IssuedKey[];
  adminKey: IssuedKey;
}

export interface AppWithEnvironments extends App {
  /** The caller's role in the app. */
  role: Role;
  environments: Pick<Environment, 'id' | 'slug' | 'name' | 'policy'>[];
}

export interface SetPolicyInput {
  appId: string;
  env: string;
  requiredApprovals: number;
}

export interface AppsService extends AppAccess {
  create(
    trx: Executor,
    principal: UserPrincipal,
    input: { name: string; slug: string },
    source: JournalSource,
  ): Promise<CreatedApp>;
  /** Apps the user owns or is a member of (a scoped token: only those it lists). */
  list(principal: UserPrincipal): Promise<AppWithEnvironments[]>;
  environments(principal: Principal, appId: string): Promise<Environment[]>;
  /** Owners only: how many approvals changes of an environment need. Journaled. */
  setPolicy(trx: Executor, principal: Principal, input: SetPolicyInput, source: JournalSource): Promise<Environment>;
  /** The environment's current policy, read in the caller's transaction (the config mutation path). */
  requiredApprovals(executor: Executor, envId: string): Promise<number>;
}

export interface AppsDeps {
  db: Kysely<Database>;
  journal: JournalService;
  planOf: (userId: string, executor?: Executor) => Promise<Plan>;
  quotas: Record<Plan, QuotaSet>;
}

export function createAppsService({ db, journal, planOf, quotas }: AppsDeps): AppsService {
  async function requireApp(
    principal: Principal,
    appId: string,
    need: Permission,
    executor: Executor = db,
  ): Promise<AppRef> {
    const app = await repo.findApp(executor, appId);
    if (!app) throw notFound(`App ${appId}`);
    let role: Role | null = null;
    if (principal.type === 'cli') {
      if (principal.appIds && !principal.appIds.includes(app.id))
        throw forbidden(`This scoped token does not reach app ${appId}.`);
      const member = await members.findMember(executor, app.id, principal.userId);
      if (!member || !isRole(member.role)) throw forbidden(`This credential cannot access app ${appId}.`);
      role = member.role;
    } else if (principal.appId !== app.id) {
      throw forbidden(`This credential cannot access app ${appId}.`);
    }
    if (!permissionsOf(principal, role).has(need)) throw permissionDenied(principal, role, need);
    return { id: app.id, ownerUserId: app.owner_user_id, slug: app.slug, role };
  }

  async function requireEnv(
    principal: Principal,
    appId: string,
    env: string,
    need: Permission,
    executor: Executor = db,
  ) {
    const app = await requireApp(principal, appId, need, executor);
    const row = await repo.findEnvironment(executor, app.id, canonicalEnvSlug(env));
    if (!row) throw notFound(`Environment ${env} of app ${appId}`);
    if (principal.type === 'cli' && principal.envs && !principal.envs.includes(row.slug))
      throw forbidden(`This scoped token does not reach environment ${row.slug}.`);
    return {
      app,
      env: {
        id: row.id,
        appId: row.app_id,
        slug: row.slug,
        name: row.name,
        requiredApprovals: Number(row.required_approvals ?? 0),
      },
    };
  }

  return {
    requireApp,
    requireEnv,
    async create(trx, principal, input, source) {
      // Serialises one user's app creations, so the quota check cannot be raced past.
      await lockUser(trx, principal.userId);
      const limit = quotas[await planOf(principal.userId, trx)].apps;
      if ((await repo.countAppsOfOwner(trx, principal.userId)) >= limit) {
        throw new AppError(429, 'app_quota_exceeded', `Your plan allows ${limit} apps.`, {
          resolution: 'Delete an app you no longer need or ask the operator for a larger plan.',
          metadata: { limit },
        });
      }
      const createdAt = nowIso();
      const app = {
        id: newId('app'),
        owner_user_id: principal.userId,
        name: input.name,
        slug: input.slug,
        created_at: createdAt,
      };
      try {
        await repo.insertApp(trx, app);
      } catch (err) {
        if (isUniqueViolation(err))
          throw new AppError(409, 'slug_conflict', `You already have an app with slug "${input.slug}".`, {
            resolution: 'Choose another slug.',
          });
        throw err;
      }
      // The creator is the app's first owner.
      await members.insertMember(trx, {
        app_id: app.id,
        user_id: principal.userId,
        role: 'owner',
        created_at: createdAt,
        updated_at: createdAt,
      });
      const environments: Environment[] = [];
      const envKeys: IssuedKey[] = [];
      for (const d of DEFAULT_ENVIRONMENTS) {
        const env = {
          id: newId('env'),
          app_id: app.id,
          slug: d.slug,
          name: d.name,
          created_at: createdAt,
          required_approvals: 0,
        };
        await repo.insertEnvironment(trx, env);
        environments.push(repo.toEnvironment(env));
        envKeys.push(await issueKey(trx, { appId: app.id, envId: env.id, envSlug: env.slug, type: 'sdk' }));
      }
      const adminKey = await issueKey(trx, { appId: app.id, envId: null, envSlug: null, type: 'admin' });
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
          ...environments.map((e) => ({
            op: 'add' as const,
            resourceType: 'environment',
            key: e.slug,
            path: '',
            after: { id: e.id, name: e.name },
          })),
          ...[...envKeys, adminKey].map((k) => ({
            op: 'add' as const,
            resourceType: 'key',
            key: k.id,
            path: '',
            after: { type: k.type, env: k.env, prefix: k.prefix },
          })),
        ],
      });
      return { app: repo.toApp(app), environments, keys: envKeys, adminKey };
    },
    async list(principal) {
      // A scoped token sees only the apps and environments it lists, and only while its user may read them.
      const apps = (await members.listAppsOfMember(db, principal.userId)).filter(
        (a) => isRole(a.role) && (!principal.appIds || principal.appIds.includes(a.id)),
      );
      const envs = (
        await repo.listEnvironments(
          db,
          apps.map((a) => a.id),
        )
      ).filter((e) => !principal.envs || principal.envs.includes(e.slug));
      return apps.map((a) => ({
        ...repo.toApp(a),
        role: a.role as Role,
        environments: envs
          .filter((e) => e.app_id === a.id)
          .map((e) => {
            const { id, slug, name, policy } = repo.toEnvironment(e);
            return { id, slug, name, policy };
          }),
      }));
    },
    async environments(principal, appId) {
      await requireApp(principal, appId, 'read');
      const envs = (await repo.listEnvironments(db, [appId])).map(repo.toEnvironment);
      return principal.type === 'cli' && principal.envs ? envs.filter((e) => principal.envs!.includes(e.slug)) : envs;
    },
    async setPolicy(trx, principal, input, source) {
      const { app, env } = await requireEnv(principal, input.appId, input.env, 'policy', trx);
      if (env.requiredApprovals !== input.requiredApprovals) {
        await repo.setRequiredApprovals(trx, env.id, input.requiredApprovals);
        await journal.record(trx, {
          appId: app.id,
          env: env.slug,
          operation: 'environment.policy',
          source,
          resourceType: 'environment',
          resourceId: env.id,
          authority: authorityOf(principal),
          beforeVersion: null,
          afterVersion: null,
          diff: [
            {
              op: 'change',
              resourceType: 'environment',
              key: env.slug,
              path: '/policy/requiredApprovals',
              before: env.requiredApprovals,
              after: input.requiredApprovals,
            },
          ],
        });
      }
      return repo.toEnvironment((await repo.findEnvironment(trx, app.id, env.slug))!);
    },
    requiredApprovals: (executor, envId) => repo.requiredApprovalsOf(executor, envId),
  };
}
