import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import type { ChangeNotifier } from '../../../db/notifications.js';
import type { Executor } from '../../../db/transaction.js';
import type { AppAccess } from '../../../platform/app-access.js';
import { AppError, notFound, validationError } from '../../../platform/errors.js';
import { nowIso } from '../../../platform/ids.js';
import { fingerprintOfHash, hashToken, type TokenType } from '../../../platform/tokens.js';
import type { CredentialResolution, Principal } from '../../../platform/principal.js';
import { authorityOf, type JournalService, type JournalSource } from '../journal/index.js';
import type { IssuedKey, KeyRecord, KeyType } from './keys.model.js';
import { createCredentialCache } from './credential-cache.js';
import * as repo from './keys.repository.js';
import { issueKey, type IssueKeyInput } from './issue-key.js';

export interface CreateKeyInput {
  appId: string;
  env?: string;
  type: KeyType;
  name?: string;
}

export interface KeysService {
  /** Issues a key inside the caller's transaction (app creation uses it too). */
  issue(trx: Executor, input: IssueKeyInput): Promise<IssuedKey>;
  create(trx: Executor, principal: Principal, input: CreateKeyInput, source: JournalSource): Promise<IssuedKey>;
  list(principal: Principal, appId: string, env?: string): Promise<KeyRecord[]>;
  revoke(principal: Principal, keyId: string, source: JournalSource): Promise<KeyRecord>;
  /** Resolves an admin_, sdk_ or pub_ token to its principal: synchronously when it is cached. */
  resolve(token: string, type: TokenType): CredentialResolution | Promise<CredentialResolution>;
  /** Whether the key exists and is not revoked (for grants that name a key by id, not its secret). */
  isActive(keyId: string): Promise<boolean>;
  /** Writes the batched lastUsedAt marks. */
  flushUsage(): Promise<void>;
}

/** The slugs of environments by id (the apps module's read model): keys store only the id. */
export type EnvironmentSlugs = (executor: Executor, envIds: readonly string[]) => Promise<Map<string, string>>;

export interface KeysServiceOptions {
  environmentSlugs: EnvironmentSlugs;
  /** Carries revocations to every process sharing the database, so each drops its cached key. */
  revocations?: ChangeNotifier;
  /** How long a resolved key is trusted without asking the database again (default 1 s). */
  credentialTtlMs?: number;
  /** The clock of the credential cache (tests move it). */
  now?: () => number;
}

export function createKeysService(
  db: Kysely<Database>,
  journal: JournalService,
  access: AppAccess,
  options: KeysServiceOptions,
): KeysService {
  const { environmentSlugs } = options;
  const usage = new Map<string, string>();
  const cache = createCredentialCache({ ttlMs: options.credentialTtlMs, now: options.now });
  /** Reads under way, so concurrent requests with one uncached token share a read. */
  const reading = new Map<string, Promise<CredentialResolution>>();
  options.revocations?.subscribe((payload) => {
    try {
      const keyId = (JSON.parse(payload) as { keyId?: unknown }).keyId;
      if (typeof keyId === 'string') cache.forgetKey(keyId);
    } catch {
      /* not ours; the cache's short lifetime covers anything missed */
    }
  });

  const issue = issueKey;

  /** The keys as the API shows them, each with its environment's slug (one read for all). */
  async function recordsOf(executor: Executor, rows: repo.KeyRow[]): Promise<KeyRecord[]> {
    const slugs = await environmentSlugs(
      executor,
      rows.flatMap((r) => (r.env_id ? [r.env_id] : [])),
    );
    return rows.map((r) => repo.toKeyRecord(r, r.env_id ? (slugs.get(r.env_id) ?? null) : null));
  }

  async function recordOf(executor: Executor, row: repo.KeyRow): Promise<KeyRecord> {
    return (await recordsOf(executor, [row]))[0]!;
  }

  async function resolveStored(token: string, type: TokenType): Promise<CredentialResolution> {
    const hash = hashToken(token);
    const row = await repo.findKeyByHash(db, hash);
    if (!row || row.type !== type) {
      cache.setUnknown(token);
      return { ok: false, reason: 'invalid' };
    }
    const envSlug = row.env_id ? ((await environmentSlugs(db, [row.env_id])).get(row.env_id) ?? null) : null;
    const resolution = resolutionOf(row, hash, envSlug);
    // Revocation is final, so a revoked key may be remembered as long as an active one.
    cache.set(token, row.id, resolution);
    if (resolution.ok) usage.set(row.id, nowIso());
    return resolution;
  }

  function resolutionOf(row: repo.KeyRow, hash: string, envSlug: string | null): CredentialResolution {
    if (row.status !== 'active') return { ok: false, reason: 'revoked' };
    const fingerprint = fingerprintOfHash(hash);
    if (row.type === 'admin')
      return { ok: true, principal: { type: 'admin', appId: row.app_id, keyId: row.id, fingerprint } };
    if (!row.env_id || !envSlug) return { ok: false, reason: 'invalid' };
    return {
      ok: true,
      principal: {
        type: row.type as 'sdk' | 'pub',
        appId: row.app_id,
        envId: row.env_id,
        env: envSlug,
        keyId: row.id,
        fingerprint,
      },
    };
  }

  return {
    issue,
    async create(trx, principal, input, source) {
      let envId: string | null = null;
      let envSlug: string | null = null;
      if (input.type === 'admin') {
        if (input.env !== undefined)
          throw validationError('An admin key belongs to the whole app: omit env.', [
            { path: '/env', message: 'must be absent for admin keys' },
          ]);
        // Admin keys manage the whole app (keys included): owners only. Environment keys: editors too.
        await access.requireApp(principal, input.appId, 'keys', trx);
      } else {
        if (input.env === undefined)
          throw validationError(`A ${input.type} key belongs to one environment: give env.`, [
            { path: '/env', message: `is required for ${input.type} keys` },
          ]);
        const { env } = await access.requireEnv(principal, input.appId, input.env, 'change', trx);
        envId = env.id;
        envSlug = env.slug;
      }
      const key = await issue(trx, { appId: input.appId, envId, envSlug, type: input.type, name: input.name });
      await journal.record(trx, {
        appId: input.appId,
        env: envSlug,
        operation: 'key.create',
        source,
        resourceType: 'key',
        resourceId: key.id,
        authority: authorityOf(principal),
        beforeVersion: null,
        afterVersion: null,
        diff: [
          {
            op: 'add',
            resourceType: 'key',
            key: key.id,
            path: '',
            after: { type: key.type, env: key.env, prefix: key.prefix, ...(key.name ? { name: key.name } : {}) },
          },
        ],
      });
      return key;
    },
    async list(principal, appId, env) {
      if (env !== undefined) {
        const { env: e } = await access.requireEnv(principal, appId, env, 'read');
        return recordsOf(db, await repo.listKeys(db, appId, e.id));
      }
      await access.requireApp(principal, appId, 'read');
      return recordsOf(db, await repo.listKeys(db, appId));
    },
    async isActive(keyId) {
      return (await repo.findKeyById(db, keyId))?.status === 'active';
    },
    async revoke(principal, keyId, source) {
      const existing = await repo.findKeyById(db, keyId);
      // A key the caller cannot reach is one that does not exist for them: a 403 would tell that
      // the id exists, and its message would name the app that owns it.
      const unreachable = notFound(`Key ${keyId}`);
      if (!existing) throw unreachable;
      await access.requireApp(principal, existing.app_id, 'read').catch((error: unknown) => {
        throw error instanceof AppError && error.statusCode === 403 ? unreachable : error;
      });
      // A member of the app may know the key exists; without the permission it is a plain 403.
      await access.requireApp(principal, existing.app_id, 'keys');
      const existingRecord = await recordOf(db, existing);
      if (existing.status === 'revoked') return existingRecord;
      const revoked = await db.transaction().execute(async (trx) => {
        const at = nowIso();
        if (!(await repo.markRevoked(trx, keyId, at))) {
          const current = await repo.findKeyById(trx, keyId);
          return { ...existingRecord, status: current!.status as KeyRecord['status'], revokedAt: current!.revoked_at };
        }
        await journal.record(trx, {
          appId: existing.app_id,
          env: existingRecord.env,
          operation: 'key.revoke',
          source,
          resourceType: 'key',
          resourceId: keyId,
          authority: authorityOf(principal),
          beforeVersion: null,
          afterVersion: null,
          diff: [
            { op: 'change', resourceType: 'key', key: keyId, path: '/status', before: 'active', after: 'revoked' },
          ],
        });
        await options.revocations?.publish(trx, JSON.stringify({ keyId }));
        return { ...existingRecord, status: 'revoked' as const, revokedAt: at };
      });
      // Refused from the next request on: the notification may arrive after it.
      cache.forgetKey(keyId);
      return revoked;
    },
    resolve(token, type) {
      const cached = cache.get(token);
      if (cached !== undefined) return cached;
      let pending = reading.get(token);
      if (pending === undefined) {
        pending = resolveStored(token, type).finally(() => reading.delete(token));
        reading.set(token, pending);
      }
      return pending;
    },
    async flushUsage() {
      if (usage.size === 0) return;
      const batch = new Map(usage);
      usage.clear();
      await repo.touchKeys(db, batch);
    },
  };
}
