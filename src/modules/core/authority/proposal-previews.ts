// What a proposal will do, computed when it is proposed and shown to its approvers. Core's own kinds
// are a pure edit of the current state; a registered kind is made through its module, cleared by
// the proposal, in a transaction holding the environment's lock, then rolled back (a preview
// announces nothing).
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import { inTransaction } from '../../../db/transaction.js';
import { versionConflict } from '../../../platform/errors.js';
import type { Principal } from '../../../platform/principal.js';
import { diffStates, type ConfigStateStore, type EnvironmentTarget } from '../config/index.js';
import type { BuiltinChangeKind, ProposalPreview, ProposedChange } from './authority.model.js';
import { editFor, type ChangeEditDeps } from './change-edits.js';
import type { ChangeKindRegistry } from './change-kind-registry.js';
import type { ChangeKindHandler, ProposalClearance } from './change-kinds.js';

export interface ProposeInput {
  appId: string;
  env: string;
  baseVersion: number;
  change: ProposedChange;
  reason?: string;
  expiresInSeconds?: number;
}

interface PreviewDeps extends ChangeEditDeps {
  db: Kysely<Database>;
  store: ConfigStateStore;
}

/** Thrown out of a preview's transaction to roll it back, carrying what it observed. */
class PreviewTaken extends Error {
  constructor(readonly preview: ProposalPreview) {
    super('preview taken; the transaction is rolled back');
  }
}

/** A registered kind's preview: the change made and rolled back. */
async function dryRun(
  deps: PreviewDeps,
  principal: Principal,
  target: EnvironmentTarget,
  input: ProposeInput,
  handler: ChangeKindHandler,
  proposalId: string,
): Promise<ProposalPreview> {
  const { store } = deps;
  try {
    await inTransaction(deps.db, async (trx) => {
      const base = await store.lock(trx, target);
      if (input.baseVersion !== base.version) throw versionConflict(base.version);
      const before = await handler.view(trx, target, input.change.body, proposalId);
      const clearance: ProposalClearance = {
        type: 'proposal',
        proposalId,
        phase: 'preview',
        context: { proposalId },
      };
      await handler.apply(trx, {
        principal,
        target,
        body: input.change.body,
        clearance,
        reason: input.reason ?? null,
      });
      const after = (await store.readIn(trx, target.envId))!;
      const view = await handler.view(trx, target, input.change.body, proposalId);
      throw new PreviewTaken({
        resultVersion: after.version,
        changes: diffStates(base.state, after.state),
        resource: { type: view.type, id: view.id, before: before.state, after: view.state },
      });
    });
  } catch (err) {
    if (err instanceof PreviewTaken) return err.preview;
    throw err;
  }
  throw new Error('a preview transaction committed');
}

/** Core's own kinds: the pure edit on the current state. */
async function editPreview(
  deps: PreviewDeps,
  target: EnvironmentTarget & { ownerUserId: string },
  input: ProposeInput & { change: { kind: BuiltinChangeKind } },
): Promise<ProposalPreview> {
  const current = await deps.store.current(target);
  if (input.baseVersion !== current.version) throw versionConflict(current.version);
  // Validated exactly as the route would (its 400s), and previewed against the base state.
  const edit = await editFor(deps, deps.db, target, current, input.change);
  const changes = diffStates(current.state, edit.state);
  return { resultVersion: changes.length > 0 ? current.version + 1 : current.version, changes };
}

export async function previewProposal(
  deps: PreviewDeps,
  registry: ChangeKindRegistry,
  principal: Principal,
  target: EnvironmentTarget & { ownerUserId: string },
  input: ProposeInput,
  proposalId: string,
): Promise<ProposalPreview> {
  const handler = registry.handlerOf(input.change.kind);
  return handler
    ? dryRun(deps, principal, target, input, handler, proposalId)
    : editPreview(deps, target, input as ProposeInput & { change: { kind: BuiltinChangeKind } });
}
