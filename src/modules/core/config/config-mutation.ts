// One way to apply a change to an environment's configuration, for every module that changes it
// (flags, bulk apply, and later advanced configuration and rollbacks): inside the caller's
// transaction, lock the environment, check the compare-and-swap precondition, compute the new state,
// and — unless nothing changed — write the journal entry and version N+1 together. Keeping this in
// one place is what makes "every applied change is exactly one version and one journal entry" true.
import type { Executor } from '../../../db/transaction.js';
import type { AppAccess, Permission } from '../../../platform/app-access.js';
import { versionConflict } from '../../../platform/errors.js';
import type { Principal } from '../../../platform/principal.js';
import { keyedHash } from '../../../platform/secret-box.js';
import type { JournalAuthority, JournalService, JournalSource } from '../journal/index.js';
import { approvalRequired, clearanceContext, type Clearance } from './clearance.js';
import { diffStates, redactSubjects } from './config-diff.js';
import type { ConfigStateStore } from './config-state-store.js';
import type { ConfigState, CurrentConfig, EnvironmentTarget } from './versions.model.js';

/** What a computed change is, for the journal, and the value the caller answers with. */
export interface ConfigEdit<T> {
  state: ConfigState;
  operation: string;
  resourceType: string;
  resourceId: string | null;
  result: T;
  /** What else the journal entry names (rollback target and plan digest, proposal and approvers). */
  context?: Record<string, unknown>;
}

export interface ConfigMutationRequest {
  target: EnvironmentTarget;
  /** The caller's compare-and-swap precondition on the environment's config version. */
  expectedVersion?: number;
  source: JournalSource;
  authority: JournalAuthority;
  /**
   * Set by the authority workflow when it executes (or previews) an approved proposal, and by the
   * modules whose moves only reduce exposure for an emergency stop (clearance.ts). Every other write
   * of an environment whose policy requires approvals is refused here (403 approval_required), so
   * each writer — present or future — inherits the rule by going through this one path. Its journal
   * context is added to the entry; a preview is written but never announced (it is rolled back).
   */
  clearance?: Clearance;
}

export interface AppliedEdit<T> {
  /** The new version, or the current one when nothing changed. */
  version: number;
  /** The journal entry id; null for a no-op. */
  changeId: string | null;
  applied: boolean;
  result: T;
}

export interface ConfigMutator {
  apply<T>(
    trx: Executor,
    request: ConfigMutationRequest,
    compute: (current: CurrentConfig) => ConfigEdit<T> | Promise<ConfigEdit<T>>,
  ): Promise<AppliedEdit<T>>;
}

export interface ConfigMutatorDeps {
  store: ConfigStateStore;
  journal: JournalService;
  secret: string;
  /** The environment's policy, read in the writing transaction (apps module). */
  requiredApprovals: (executor: Executor, envId: string) => Promise<number>;
}

export function createConfigMutator(deps: ConfigMutatorDeps): ConfigMutator {
  const hashSubject = (subject: string) => keyedHash(deps.secret, 'journal-subject', subject);
  return {
    async apply(trx, request, compute) {
      const { target } = request;
      if (request.clearance === undefined) {
        const required = await deps.requiredApprovals(trx, target.envId);
        if (required > 0) throw approvalRequired(target.env, required);
      }
      const current = await deps.store.lock(trx, target);
      if (request.expectedVersion !== undefined && request.expectedVersion !== current.version)
        throw versionConflict(current.version);
      const edit = await compute(current);
      const changes = diffStates(current.state, edit.state);
      // No-op: same answer, no version, no journal entry (CONTRACT section 1, Concurrency).
      if (changes.length === 0)
        return { version: current.version, changeId: null, applied: false, result: edit.result };
      const entry = await deps.journal.record(trx, {
        appId: target.appId,
        env: target.env,
        operation: edit.operation,
        source: request.source,
        resourceType: edit.resourceType,
        resourceId: edit.resourceId,
        authority: request.authority,
        beforeVersion: current.version,
        afterVersion: current.version + 1,
        diff: redactSubjects(changes, hashSubject),
        ...(edit.context || request.clearance
          ? { context: { ...edit.context, ...clearanceContext(request.clearance) } }
          : {}),
      });
      const version = await deps.store.commit(trx, target, current, {
        state: edit.state,
        changeId: entry.id,
        operation: edit.operation,
        authority: request.authority,
        announce: !(request.clearance?.type === 'proposal' && request.clearance.phase === 'preview'),
      });
      return { version, changeId: entry.id, applied: true, result: edit.result };
    },
  };
}

/** The environment a management request names, after the ownership check (403/404). */
export async function resolveTarget(
  access: AppAccess,
  principal: Principal,
  appId: string,
  env: string,
  need: Permission,
  executor?: Executor,
): Promise<EnvironmentTarget & { ownerUserId: string; requiredApprovals: number }> {
  const found = await access.requireEnv(principal, appId, env, need, executor);
  return {
    appId: found.app.id,
    envId: found.env.id,
    env: found.env.slug,
    ownerUserId: found.app.ownerUserId,
    requiredApprovals: found.env.requiredApprovals,
  };
}
