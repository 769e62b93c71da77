// Flag use cases: every change runs in the caller's transaction through the config mutator (lock,
// CAS, journal entry, version N+1); reads take the current state from the config store.
import type { Plan, QuotaSet } from '../../../config.js';
import type { Executor } from '../../../db/transaction.js';
import type { AppAccess } from '../../../platform/app-access.js';
import { nowIso } from '../../../platform/ids.js';
import type { Principal } from '../../../platform/principal.js';
import { authorityOf, type JournalSource } from '../journal/index.js';
import {
  resolveTarget,
  type ConfigMutationRequest,
  type ConfigMutator,
  type ConfigStateStore,
  type EnvironmentTarget,
  type FlagRecord,
} from '../config/index.js';
import { bulkApply } from './bulk-apply.js';
import { deleteFlag, hasFlag, patchFlag } from './flag-edits.js';
import type { BulkChanges, FlagFields, FlagPatchOp } from './flags.model.js';

interface EnvInput {
  appId: string;
  env: string;
  expectedVersion?: number;
}

export type PatchFlagInput = EnvInput & FlagFields & { key: string; op?: FlagPatchOp };
export type BulkApplyInput = EnvInput & BulkChanges;

/** Search and paging of the list: absent, the whole environment in one answer (the older shape). */
export interface FlagListPage {
  q?: string;
  limit?: number;
  /** The last key of the previous page: this page starts after it. */
  after?: string;
}

export interface FlagList {
  flags: FlagRecord[];
  version: number;
  /** With a page: how many flags match, and the last key of this page when more follow. */
  total?: number;
  lastKey?: string | null;
}

export interface FlagsService {
  list(principal: Principal, appId: string, env: string, page?: FlagListPage): Promise<FlagList>;
  // Mutations run in the caller's transaction, so an idempotency record commits with the change.
  patch(
    trx: Executor,
    principal: Principal,
    input: PatchFlagInput,
    source: JournalSource,
  ): Promise<{ flag: FlagRecord; version: number; changeId: string | null }>;
  remove(
    trx: Executor,
    principal: Principal,
    input: EnvInput & { key: string },
    source: JournalSource,
  ): Promise<{ version: number; changeId: string }>;
  bulkApply(
    trx: Executor,
    principal: Principal,
    input: BulkApplyInput,
  ): Promise<{ version: number; changeId: string | null; updated: string[] }>;
}

export interface FlagsDeps {
  access: AppAccess;
  store: ConfigStateStore;
  mutator: ConfigMutator;
  planOf: (userId: string, executor?: Executor) => Promise<Plan>;
  quotas: Record<Plan, QuotaSet>;
}

export function createFlagsService({ access, store, mutator, planOf, quotas }: FlagsDeps): FlagsService {
  const request = (
    principal: Principal,
    target: EnvironmentTarget,
    expectedVersion: number | undefined,
    source: JournalSource,
  ): ConfigMutationRequest => ({ target, expectedVersion, source, authority: authorityOf(principal) });

  return {
    async list(principal, appId, env, page) {
      const current = await store.current(await resolveTarget(access, principal, appId, env, 'read'));
      const all = current.state.flags;
      const keys = Object.keys(all).sort();
      if (page === undefined) return { flags: keys.map((key) => all[key]!), version: current.version };
      const needle = page.q?.toLowerCase();
      const matching =
        needle === undefined
          ? keys
          : keys.filter(
              (key) => key.toLowerCase().includes(needle) || all[key]!.description.toLowerCase().includes(needle),
            );
      // Keys are unique and sorted in code-unit order, so "after the last key" is a stable position
      // even when flags are added or removed between pages.
      const after = page.after;
      const start = after === undefined ? 0 : firstAfter(matching, after);
      const end = page.limit === undefined ? matching.length : Math.min(matching.length, start + page.limit);
      const flags = matching.slice(start, end).map((key) => all[key]!);
      return {
        flags,
        version: current.version,
        total: matching.length,
        lastKey: end < matching.length ? matching[end - 1]! : null,
      };
    },

    async patch(trx, principal, input, source) {
      const { appId, env, key, op, expectedVersion, ...fields } = input;
      const target = await resolveTarget(access, principal, appId, env, 'change', trx);
      const applied = await mutator.apply(trx, request(principal, target, expectedVersion, source), async (current) => {
        // The owner's plan matters only when the change adds a flag.
        const flagLimit = hasFlag(current.state, key) ? Infinity : quotas[await planOf(target.ownerUserId, trx)].flags;
        return patchFlag(current.state, { key, op: op ?? 'upsert', fields }, { now: nowIso(), flagLimit });
      });
      return { flag: applied.result, version: applied.version, changeId: applied.changeId };
    },

    async remove(trx, principal, input, source) {
      const target = await resolveTarget(access, principal, input.appId, input.env, 'change', trx);
      const applied = await mutator.apply(trx, request(principal, target, input.expectedVersion, source), (current) =>
        deleteFlag(current.state, input.key),
      );
      // A delete always changes the state (a missing flag is 404), so there is always a change id.
      return { version: applied.version, changeId: applied.changeId! };
    },

    async bulkApply(trx, principal, input) {
      const { appId, env, expectedVersion, ...changes } = input;
      const target = await resolveTarget(access, principal, appId, env, 'change', trx);
      const applied = await mutator.apply(trx, request(principal, target, expectedVersion, 'bulk'), (current) => ({
        ...bulkApply(current.state, changes, nowIso()),
        resourceId: target.envId,
      }));
      return { version: applied.version, changeId: applied.changeId, updated: applied.result.updated };
    },
  };
}

/** Index of the first key greater than `key` in sorted `keys` (binary search). */
function firstAfter(keys: string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
