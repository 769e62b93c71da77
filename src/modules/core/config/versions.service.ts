// Reading the history of an environment's configuration: the retained versions, one exact snapshot,
// and the structured diff between two of them.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import type { AppAccess } from '../../../platform/app-access.js';
import { digestOf } from '../../../platform/canonical-json.js';
import { AppError, validationError } from '../../../platform/errors.js';
import { decodeCursor, encodeCursor } from '../../../platform/pagination.js';
import type { Principal } from '../../../platform/principal.js';
import type { DiffEntry } from '../journal/index.js';
import {
  dependencyChanges,
  diffStates,
  visibilityChanges,
  type DependencyChange,
  type VisibilityChange,
} from './config-diff.js';
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
  list(
    principal: Principal,
    appId: string,
    env: string,
    limit: number,
    cursor?: string,
  ): Promise<{ versions: VersionMeta[]; nextCursor: string | null; current: CurrentConfig }>;
  get(
    principal: Principal,
    appId: string,
    env: string,
    version: number,
  ): Promise<Pick<VersionSnapshot, 'version' | 'createdAt' | 'changeId' | 'state'>>;
  diff(principal: Principal, appId: string, env: string, from: number, to: number): Promise<VersionDiff>;
}

const notRetained = (version: number, env: string) =>
  new AppError(404, 'not_found', `Version ${version} of environment ${env} is not retained.`, {
    resolution:
      'List the retained versions with GET /api/v1/config-versions; the newest 1,000 and every version younger than 90 days are kept.',
  });

const CURSOR_PREFIX = 'cv1_';

/** A page ends at a version of one environment: the cursor names both, so it cannot page another. */
function versionBefore(cursor: string | undefined, envId: string): number | undefined {
  const position = decodeCursor(CURSOR_PREFIX, cursor);
  if (position === undefined) return undefined;
  const [owner, version] = position.split('/');
  if (owner !== envId || !/^\d{1,15}$/.test(version ?? '')) {
    throw validationError(
      'The cursor is not valid for this environment.',
      [{ path: 'querystring.cursor', message: 'was issued for another environment or is damaged' }],
      'Pass the nextCursor of a previous page of the same appId and env unchanged.',
    );
  }
  return Number(version);
}

export function createVersionsService(deps: {
  db: Kysely<Database>;
  store: ConfigStateStore;
  access: AppAccess;
}): VersionsService {
  const { db, store, access } = deps;

  async function snapshot(target: EnvironmentTarget, version: number): Promise<VersionSnapshot> {
    // current() creates version 0 of an environment nothing has been written to yet.
    const current = await store.current(target);
    const found = version <= current.version ? await repo.findVersion(db, target.envId, version) : undefined;
    if (!found) throw notRetained(version, target.env);
    return found;
  }

  return {
    async list(principal, appId, env, limit, cursor) {
      const target = await resolveTarget(access, principal, appId, env, 'read');
      const before = versionBefore(cursor, target.envId);
      const current = await store.current(target);
      // Bounded by the current version read first, so the list never runs ahead of `current`; a
      // cursor continues below the last version of the previous page.
      const upTo = before === undefined ? current.version : Math.min(current.version, before - 1);
      const rows = upTo < 0 ? [] : await repo.listVersions(db, target.envId, upTo, limit + 1);
      const versions = rows.slice(0, limit);
      const nextCursor =
        rows.length > limit
          ? encodeCursor(CURSOR_PREFIX, `${target.envId}/${versions[versions.length - 1]!.version}`)
          : null;
      return { versions, nextCursor, current };
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
