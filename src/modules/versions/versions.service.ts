// Reading the history of an environment's configuration: the retained versions, one exact snapshot,
// and the structured diff between two of them.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import type { AppAccess } from '../../platform/app-access.js';
import { digestOf } from '../../platform/canonical-json.js';
import { AppError } from '../../platform/errors.js';
import type { Principal } from '../../platform/principal.js';
import type { DiffEntry } from '../journal/index.js';
import { dependencyChanges, diffStates, visibilityChanges, type DependencyChange, type VisibilityChange } from './config-diff.js';
import { resolveTarget } from './config-mutation.js';
import type { ConfigStateStore } from './config-state-store.js';
import type { CurrentConfig, EnvironmentTarget, VersionMeta, VersionSnapshot } from './versions.model.js';
import * as repo from './versions.repository.js';

export interface VersionDiff {
  from: number;
  to: number;
  changes: DiffEntry[];
  dependencies: DependencyChange[];
  visibility: VisibilityChange[];
  /** Digests of the two states: a rollback from `to` to `from` restores the state digested as fromState. */
  rollback: { fromState: string; toState: string };
}

export interface VersionsService {
  list(principal: Principal, appId: string, env: string, limit: number): Promise<{ versions: VersionMeta[]; current: CurrentConfig }>;
  get(principal: Principal, appId: string, env: string, version: number): Promise<Pick<VersionSnapshot, 'version' | 'createdAt' | 'changeId' | 'state'>>;
  diff(principal: Principal, appId: string, env: string, from: number, to: number): Promise<VersionDiff>;
}

const notRetained = (version: number, env: string) =>
  new AppError(404, 'not_found', `Version ${version} of environment ${env} is not retained.`, {
    resolution: 'List the retained versions with GET /api/v1/config-versions; the newest 1,000 and every version younger than 90 days are kept.',
  });

export function createVersionsService(deps: { db: Kysely<Database>; store: ConfigStateStore; access: AppAccess }): VersionsService {
  const { db, store, access } = deps;

  async function snapshot(target: EnvironmentTarget, version: number): Promise<VersionSnapshot> {
    // current() creates version 0 of an environment nothing has been written to yet.
    const current = await store.current(target);
    const found = version <= current.version ? await repo.findVersion(db, target.envId, version) : undefined;
    if (!found) throw notRetained(version, target.env);
    return found;
  }

  return {
    async list(principal, appId, env, limit) {
      const target = await resolveTarget(access, principal, appId, env, 'read');
      const current = await store.current(target);
      // Bounded by the current version read first, so the list never runs ahead of `current`.
      const versions = await repo.listVersions(db, target.envId, current.version, limit);
      return { versions, current };
    },
    async get(principal, appId, env, version) {
      const found = await snapshot(await resolveTarget(access, principal, appId, env, 'read'), version);
      return { version: found.version, createdAt: found.createdAt, changeId: found.changeId, state: found.state };
    },
    async diff(principal, appId, env, from, to) {
      const target = await resolveTarget(access, principal, appId, env, 'read');
      const a = (await snapshot(target, from)).state;
      const b = (await snapshot(target, to)).state;
      return {
        from,
        to,
        changes: diffStates(a, b),
        dependencies: dependencyChanges(a, b),
        visibility: visibilityChanges(a, b),
        rollback: { fromState: digestOf(a), toState: digestOf(b) },
      };
    },
  };
}
