// The one writer of environment configuration. Every applied change locks the environment's row,
// writes version N+1 with its full snapshot, and publishes the change — all in the caller's
// transaction, so versions never gap or repeat, also across processes sharing one PostgreSQL.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import type { ChangeNotifier } from '../../../db/notifications.js';
import type { Executor } from '../../../db/transaction.js';
import type { JournalAuthority } from '../journal/index.js';
import * as repo from './config-state.repository.js';
import type { ConfigState, CurrentConfig, EnvironmentTarget, VersionSnapshot } from './versions.model.js';
import { findVersion } from './versions.repository.js';

const RETAIN_NEWEST = 1000;
const RETAIN_DAYS = 90;

export interface ConfigCommit {
  state: ConfigState;
  changeId: string | null;
  operation: string;
  authority: JournalAuthority;
  /** false: tell no reader (a preview the caller rolls back); default true. */
  announce?: boolean;
}

export interface ConfigChange {
  envId: string;
  appId: string;
  version: number;
}

export interface ConfigStateStore {
  /** The current version and state, locked for the rest of the transaction. */
  lock(trx: Executor, target: EnvironmentTarget): Promise<CurrentConfig>;
  /** Writes version `locked.version + 1` with the new state; returns the new version. */
  commit(trx: Executor, target: EnvironmentTarget, locked: CurrentConfig, change: ConfigCommit): Promise<number>;
  /** The current config outside any transaction (version 0 and an empty state if never written). */
  current(target: EnvironmentTarget): Promise<CurrentConfig>;
  /** The current config read in the caller's transaction (a read-back right after a write). */
  readIn(executor: Executor, envId: string): Promise<CurrentConfig | null>;
  /** A retained version's exact snapshot (in the caller's transaction when given); undefined if not retained. */
  retained(executor: Executor | null, envId: string, version: number): Promise<VersionSnapshot | undefined>;
  /** Environments changed after an instant (RFC 3339): the readers' polling fallback. */
  changedSince(since: string): Promise<{ envId: string; version: number; updatedAt: string }[]>;
  onChange(listener: (change: ConfigChange) => void): () => void;
}

/**
 * Reports a listener that threw on a change. The other listeners still hear the change, and the
 * failure reaches the error log instead of being swallowed. By default it is thrown again on its own
 * (an uncaught exception: a defect in a listener is never silent).
 */
export type ListenerFailure = (error: unknown, change: ConfigChange) => void;

const rethrow: ListenerFailure = (error) => {
  queueMicrotask(() => {
    throw error;
  });
};

export function createConfigStateStore(
  db: Kysely<Database>,
  notifier: ChangeNotifier,
  onListenerFailure: ListenerFailure = rethrow,
): ConfigStateStore {
  return {
    lock: (trx, target) => repo.lockConfig(trx, target),
    async commit(trx, target, locked, change) {
      const version = locked.version + 1;
      const at = new Date().toISOString();
      const state = JSON.stringify(change.state);
      await repo.insertVersion(trx, {
        env_id: target.envId,
        version,
        app_id: target.appId,
        change_id: change.changeId,
        operation: change.operation,
        authority: JSON.stringify(change.authority),
        state,
        created_at: at,
      });
      await repo.writeConfig(trx, target.envId, version, state, at);
      await repo.pruneVersions(
        trx,
        target.envId,
        version,
        RETAIN_NEWEST,
        new Date(Date.now() - RETAIN_DAYS * 86_400_000).toISOString(),
      );
      if (change.announce !== false)
        await notifier.publish(
          trx,
          JSON.stringify({ envId: target.envId, appId: target.appId, version } satisfies ConfigChange),
        );
      return version;
    },
    async current(target) {
      const found = await repo.readConfig(db, target.envId);
      if (found) return found;
      await repo.ensureConfigRow(db, target);
      return (await repo.readConfig(db, target.envId))!;
    },
    readIn: (executor, envId) => repo.readConfig(executor, envId),
    retained: (executor, envId, version) => findVersion(executor ?? db, envId, version),
    changedSince: (since) => repo.changedSince(db, since),
    onChange(listener) {
      return notifier.subscribe((payload) => {
        let change: ConfigChange;
        try {
          change = JSON.parse(payload) as ConfigChange;
        } catch {
          // Another process's payload that does not parse: the readers' polling catches up.
          return;
        }
        try {
          listener(change);
        } catch (error) {
          onListenerFailure(error, change);
        }
      });
    },
  };
}
