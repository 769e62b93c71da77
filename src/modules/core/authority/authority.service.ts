// The four-eyes authority workflow: scoped capability tokens, immutable proposals (validated and
// previewed at proposal time), approvals by someone other than the proposer, and execution — the
// change applied as one new version through the config mutator, read back inside the same
// transaction and compared with the preview, at most once per proposal (its row is locked and its
// receipt unique), then observed with read-back. Kinds beyond core's flag kinds are registered by the
// modules that own them (change-kinds.ts, decision 0029): previewed by making the change in a
// transaction that is rolled back, executed by making it again cleared by the proposal.
import type { TObject } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import { isUniqueViolation } from '../../../db/constraint-errors.js';
import { inTransaction, type Executor } from '../../../db/transaction.js';
import type { AppAccess, Capability } from '../../../platform/app-access.js';
import { canonicalJson, digestOf } from '../../../platform/canonical-json.js';
import { AppError, conflict, notFound, versionConflict } from '../../../platform/errors.js';
import { newId } from '../../../platform/ids.js';
import type { Principal, UserPrincipal } from '../../../platform/principal.js';
import { canonicalEnvSlug } from '../apps/index.js';
import type { AuthService } from '../auth/index.js';
import { authorityOf } from '../journal/index.js';
import {
  diffStates,
  resolveTarget,
  type ConfigMutator,
  type ConfigState,
  type ConfigStateStore,
  type EnvironmentTarget,
} from '../config/index.js';
import {
  CHANGE_KINDS,
  statusOf,
  type Approval,
  type BuiltinChangeKind,
  type Proposal,
  type ProposalPreview,
  type ProposalStatus,
  type ProposedChange,
  type Receipt,
} from './authority.model.js';
import * as repo from './authority.repository.js';
import {
  bodyValidator,
  builtinValidator,
  CHANGE_BODY_SCHEMAS,
  editFor,
  validateChangeBody,
  type ChangeEditDeps,
} from './change-edits.js';
import type { ChangeKindHandler, ProposalClearance } from './change-kinds.js';

export interface AuthorityDeps extends ChangeEditDeps {
  db: Kysely<Database>;
  access: AppAccess;
  auth: Pick<AuthService, 'issueScopedToken'>;
  store: ConfigStateStore;
  mutator: ConfigMutator;
  /** The version delivery serves an environment now (its in-memory snapshot). */
  servedVersion: (target: EnvironmentTarget) => Promise<number>;
  now: () => number;
}

export interface TokenInput {
  capabilities: Capability[];
  appIds: string[];
  envs?: string[];
  ttlSeconds?: number;
  name?: string;
}

export interface ProposeInput {
  appId: string;
  env: string;
  baseVersion: number;
  change: ProposedChange;
  reason?: string;
  expiresInSeconds?: number;
}

export interface ProposalView {
  proposal: Proposal;
  approvals: Approval[];
  receipt: Receipt | null;
  status: ProposalStatus;
}

export interface Observation {
  currentVersion: number;
  servedVersion: number;
  appliedStateDigest: string;
  currentStateDigest: string;
  inEffect: boolean;
  superseded: boolean;
  observedAt: string;
}

export interface AuthorityService {
  mintToken(
    principal: Principal,
    input: TokenInput,
  ): Promise<{
    token: string;
    id: string;
    capabilities: Capability[];
    appIds: string[];
    envs: string[] | null;
    expiresAt: string;
  }>;
  propose(principal: Principal, input: ProposeInput): Promise<Proposal>;
  list(
    principal: Principal,
    query: { appId: string; env: string; status?: ProposalStatus; limit?: number },
  ): Promise<ProposalView[]>;
  show(principal: Principal, appId: string, id: string): Promise<ProposalView>;
  approve(
    principal: Principal,
    input: { appId: string; env: string; proposalId: string; digest: string; comment?: string },
  ): Promise<Approval>;
  execute(
    principal: Principal,
    input: { appId: string; env: string; proposalId: string; digest: string },
  ): Promise<Receipt>;
  readback(
    principal: Principal,
    input: { appId: string; env: string; receiptId: string },
  ): Promise<{ receipt: Receipt; observation: Observation }>;
  /** Adds change kinds owned by modules above core; only before the routes read `changeBodies`. */
  register(...handlers: ChangeKindHandler[]): void;
  /** Every kind's body schema, core's first (the routes' schemas and the OpenAPI document); closes registration. */
  changeBodies(): Record<string, TObject>;
}

const DEFAULT_TOKEN_TTL_SECONDS = 3600;
const DEFAULT_PROPOSAL_SECONDS = 604_800;
const LIST_LIMIT = 100;

const proposalNotFound = (id: string) => notFound(`Proposal ${id}`);
const isBuiltin = (kind: string): kind is BuiltinChangeKind => (CHANGE_KINDS as readonly string[]).includes(kind);
const staleProposal = (baseVersion: number, currentVersion: number) =>
  conflict(
    'stale_proposal',
    `The environment moved from version ${baseVersion} to ${currentVersion} since the proposal.`,
    {
      metadata: { baseVersion, currentVersion },
      resolution: 'Propose the change again against the current version.',
    },
  );
const readbackMismatch = (expectedVersion: number, observedVersion: number | null) =>
  conflict('readback_mismatch', 'The applied state differs from the previewed result; nothing was applied.', {
    metadata: { expectedVersion, observedVersion },
    resolution: 'Read the proposal and the current configuration; propose the change again.',
  });

/** Thrown out of a preview's transaction to roll it back, carrying what it observed. */
class PreviewTaken extends Error {
  constructor(readonly preview: ProposalPreview) {
    super('preview taken; the transaction is rolled back');
  }
}
const digestMismatch = (digest: string) =>
  conflict('digest_mismatch', 'The digest does not match the proposal.', {
    metadata: { digest },
    resolution: 'Read the proposal (GET /api/v1/authority/proposals/{id}), review it, and send its digest.',
  });

export function createAuthorityService(deps: AuthorityDeps): AuthorityService {
  const { db, access, store, mutator } = deps;
  const iso = (ms: number) => new Date(ms).toISOString();
  const handlers = new Map<string, { handler: ChangeKindHandler; validate: ReturnType<typeof bodyValidator> }>();
  let sealed = false;

  /** The registered handler of a kind; undefined for core's own kinds. */
  const handlerOf = (kind: string) => handlers.get(kind)?.handler;

  function validate(change: ProposedChange) {
    if (isBuiltin(change.kind)) return validateChangeBody(change.body, builtinValidator(change.kind));
    const registered = handlers.get(change.kind);
    if (!registered) throw notFound(`Change kind ${change.kind}`);
    validateChangeBody(change.body, registered.validate);
  }

  /** Whether a registered kind's resource is no longer what the proposal previewed (its revision moved). */
  async function resourceMoved(executor: Executor, target: EnvironmentTarget, proposal: Proposal): Promise<boolean> {
    const handler = handlerOf(proposal.change.kind);
    if (!handler || !proposal.preview.resource) return false;
    const now = await handler.view(executor, target, proposal.change.body, proposal.id);
    return canonicalJson(now.state) !== canonicalJson(proposal.preview.resource.before);
  }

  async function views(
    executor: Executor,
    target: EnvironmentTarget & { requiredApprovals: number },
    rows: repo.ProposalRow[],
  ): Promise<ProposalView[]> {
    const ids = rows.map((r) => r.id);
    // Sequential reads on the caller's executor: inside a SQLite transaction there is one connection.
    const approvals = await repo.approvalsOf(executor, ids);
    const receipts = await repo.receiptsOf(executor, ids);
    const current = (await store.readIn(executor, target.envId)) ?? { version: 0 };
    const now = deps.now();
    const out: ProposalView[] = [];
    for (const row of rows) {
      const proposal = repo.toProposal(row);
      const mine = approvals.filter((a) => a.proposal_id === row.id).map(repo.toApproval);
      const receipt = receipts.find((r) => r.proposal_id === row.id);
      const facts = {
        receipt: !!receipt,
        approvals: mine.length,
        currentVersion: current.version,
        requiredApprovals: target.requiredApprovals,
        now,
      };
      let status = statusOf(proposal, facts);
      if ((status === 'open' || status === 'approved') && (await resourceMoved(executor, target, proposal)))
        status = statusOf(proposal, { ...facts, resourceMoved: true });
      out.push({ proposal, approvals: mine, receipt: receipt ? repo.toReceipt(receipt) : null, status });
    }
    return out;
  }

  /**
   * A registered kind's preview: the change made through its module, cleared by the proposal, in a
   * transaction holding the environment's lock, then rolled back (a preview announces nothing).
   */
  async function dryRun(
    principal: Principal,
    target: EnvironmentTarget,
    input: ProposeInput,
    handler: ChangeKindHandler,
    proposalId: string,
  ): Promise<ProposalPreview> {
    try {
      await inTransaction(db, async (trx) => {
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
    target: EnvironmentTarget & { ownerUserId: string },
    input: ProposeInput & { change: { kind: BuiltinChangeKind } },
  ): Promise<ProposalPreview> {
    const current = await store.current(target);
    if (input.baseVersion !== current.version) throw versionConflict(current.version);
    // Validated exactly as the route would (its 400s), and previewed against the base state.
    const edit = await editFor(deps, db, target, current, input.change);
    const changes = diffStates(current.state, edit.state);
    return { resultVersion: changes.length > 0 ? current.version + 1 : current.version, changes };
  }

  async function proposalOf(executor: Executor, target: EnvironmentTarget, id: string, lock = false) {
    const row = await repo.findProposal(executor, target.envId, id, lock);
    if (!row) throw proposalNotFound(id);
    return row;
  }

  return {
    async mintToken(principal, input) {
      if (principal.type !== 'cli' || principal.scoped) {
        throw new AppError(403, 'forbidden', 'Scoped tokens are minted with a login (unscoped) cli_ token only.', {
          resolution: 'Log in with ensign login and mint the token with that login token.',
        });
      }
      // Each listed app must be one the user reaches now; the token's power is re-checked on every use.
      for (const appId of new Set(input.appIds)) await access.requireApp(principal, appId, 'read');
      const createdAt = deps.now();
      const expiresAt = iso(createdAt + (input.ttlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS) * 1000);
      const scope = {
        capabilities: [...new Set(input.capabilities)].sort() as Capability[],
        appIds: [...new Set(input.appIds)],
        envs: input.envs ? [...new Set(input.envs.map(canonicalEnvSlug))] : null,
        name: input.name ?? null,
      };
      const issued = await deps.auth.issueScopedToken(principal.userId, scope, iso(createdAt), expiresAt);
      return {
        token: issued.token,
        id: issued.id,
        capabilities: scope.capabilities,
        appIds: scope.appIds,
        envs: scope.envs,
        expiresAt,
      };
    },

    async propose(principal, input) {
      validate(input.change);
      const target = await resolveTarget(access, principal, input.appId, input.env, 'propose');
      const id = newId('prp');
      const handler = handlerOf(input.change.kind);
      const preview = handler
        ? await dryRun(principal, target, input, handler, id)
        : await editPreview(target, input as ProposeInput & { change: { kind: BuiltinChangeKind } });
      const createdAt = deps.now();
      const body = {
        id,
        appId: target.appId,
        env: target.env,
        baseVersion: input.baseVersion,
        change: input.change,
        preview,
        proposedBy: authorityOf(principal),
        requiredApprovals: target.requiredApprovals,
        reason: input.reason ?? null,
        createdAt: iso(createdAt),
        expiresAt: iso(createdAt + (input.expiresInSeconds ?? DEFAULT_PROPOSAL_SECONDS) * 1000),
      };
      const proposal: Proposal = { ...body, digest: digestOf(body) };
      await repo.insertProposal(db, {
        id: proposal.id,
        app_id: proposal.appId,
        env_id: target.envId,
        env: proposal.env,
        base_version: proposal.baseVersion,
        change: JSON.stringify(proposal.change),
        preview: JSON.stringify(proposal.preview),
        digest: proposal.digest,
        proposed_by: JSON.stringify(proposal.proposedBy),
        proposer_user_id: principal.type === 'cli' ? principal.userId : null,
        required_approvals: proposal.requiredApprovals,
        reason: proposal.reason,
        created_at: proposal.createdAt,
        expires_at: proposal.expiresAt,
      });
      return proposal;
    },

    async list(principal, query) {
      const target = await resolveTarget(access, principal, query.appId, query.env, 'read');
      const all = await views(db, target, await repo.listProposals(db, target.envId, query.limit ?? LIST_LIMIT));
      return query.status ? all.filter((v) => v.status === query.status) : all;
    },

    async show(principal, appId, id) {
      const row = await repo.findProposalById(db, id);
      // Existence is not revealed before access: the app is checked first.
      await access.requireApp(principal, appId, 'read');
      if (!row || row.app_id !== appId) throw proposalNotFound(id);
      const target = await resolveTarget(access, principal, appId, row.env, 'read');
      return (await views(db, target, [row]))[0]!;
    },

    async approve(principal, input) {
      const target = await resolveTarget(access, principal, input.appId, input.env, 'approve');
      const user = principal as UserPrincipal; // only people hold `approve`
      return inTransaction(db, async (trx) => {
        const row = await proposalOf(trx, target, input.proposalId, true);
        if (row.proposer_user_id === user.userId) {
          throw new AppError(
            403,
            'self_approval_forbidden',
            'You proposed this change; someone else must approve it.',
            {
              resolution: 'Ask another owner or editor of the app to approve the proposal.',
            },
          );
        }
        const existing = (await repo.approvalsOf(trx, [row.id])).find((a) => a.approver_user_id === user.userId);
        if (existing) return repo.toApproval(existing);
        if (input.digest !== row.digest) throw digestMismatch(row.digest);
        const [view] = await views(trx, target, [row]);
        if (view!.status === 'executed' || view!.status === 'expired' || view!.status === 'stale') {
          throw conflict('proposal_closed', `The proposal is ${view!.status} and takes no more approvals.`, {
            metadata: { status: view!.status },
            resolution:
              view!.status === 'stale'
                ? 'Propose the change again against the current version.'
                : 'Propose a new change if one is still needed.',
          });
        }
        const approval = {
          id: newId('apv'),
          proposal_id: row.id,
          approver_user_id: user.userId,
          digest: row.digest,
          comment: input.comment ?? null,
          created_at: iso(deps.now()),
        };
        await repo.insertApproval(trx, approval);
        return repo.toApproval(approval);
      }).catch(async (err) => {
        // Two approvals by one user at once: the second gets the first back.
        if (!isUniqueViolation(err)) throw err;
        const found = (await repo.approvalsOf(db, [input.proposalId])).find((a) => a.approver_user_id === user.userId);
        if (!found) throw err;
        return repo.toApproval(found);
      });
    },

    async execute(principal, input) {
      const run = () =>
        inTransaction(db, async (trx) => {
          const target = await resolveTarget(access, principal, input.appId, input.env, 'execute', trx);
          // Locked: a concurrent execute (any process) waits here, then finds the receipt below.
          const row = await proposalOf(trx, target, input.proposalId, true);
          if (input.digest !== row.digest) throw digestMismatch(row.digest);
          const [done] = await repo.receiptsOf(trx, [row.id]);
          if (done) return repo.toReceipt(done);
          const proposal = repo.toProposal(row);
          if (Date.parse(proposal.expiresAt) <= deps.now()) {
            throw conflict('proposal_expired', `The proposal expired at ${proposal.expiresAt}.`, {
              resolution: 'Propose the change again.',
            });
          }
          const approvals = (await repo.approvalsOf(trx, [row.id])).map(repo.toApproval);
          if (approvals.length < target.requiredApprovals) {
            throw conflict(
              'approvals_missing',
              `The proposal has ${approvals.length} of the ${target.requiredApprovals} approvals environment ${target.env} requires.`,
              {
                metadata: { approvals: approvals.length, requiredApprovals: target.requiredApprovals },
                resolution:
                  'Ask other owners or editors to approve it (POST /api/v1/authority/approve), then execute again.',
              },
            );
          }
          const receiptId = newId('rcp');
          const clearance: ProposalClearance = {
            type: 'proposal',
            proposalId: proposal.id,
            phase: 'execute',
            context: {
              proposalId: proposal.id,
              receiptId,
              proposedBy: proposal.proposedBy,
              approvers: approvals.map((a) => a.approvedBy),
            },
          };
          const handler = handlerOf(proposal.change.kind);
          let base: ConfigState | null = null;
          let applied: { version: number; changeId: string | null };
          if (handler) {
            // The environment stays locked from here to the read-back: nothing slips in between.
            const current = await store.lock(trx, target);
            if (current.version !== proposal.baseVersion) throw staleProposal(proposal.baseVersion, current.version);
            base = current.state;
            await handler.apply(trx, {
              principal,
              target,
              body: proposal.change.body,
              clearance,
              reason: proposal.reason,
            });
            const after = (await store.readIn(trx, target.envId))!;
            const changeId =
              after.version > current.version
                ? ((await store.retained(trx, target.envId, after.version))?.changeId ?? null)
                : null;
            applied = { version: after.version, changeId };
          } else {
            applied = await mutator.apply(
              trx,
              { target, source: 'authority', authority: authorityOf(principal), clearance },
              async (current) => {
                if (current.version !== proposal.baseVersion)
                  throw staleProposal(proposal.baseVersion, current.version);
                base = JSON.parse(canonicalJson(current.state)) as ConfigState;
                return editFor(
                  deps,
                  trx,
                  target,
                  current,
                  proposal.change as { kind: BuiltinChangeKind; body: Record<string, unknown> },
                );
              },
            );
          }
          // Read back inside the transaction: what is now stored must be what the approvers saw.
          const stored = await store.readIn(trx, target.envId);
          const observed = stored && base !== null ? diffStates(base, stored.state) : null;
          if (
            !stored ||
            stored.version !== proposal.preview.resultVersion ||
            canonicalJson(observed) !== canonicalJson(proposal.preview.changes)
          ) {
            throw readbackMismatch(proposal.preview.resultVersion, stored?.version ?? null);
          }
          if (handler && proposal.preview.resource) {
            const view = await handler.view(trx, target, proposal.change.body, proposal.id);
            const previewed = proposal.preview.resource;
            if (
              view.type !== previewed.type ||
              view.id !== previewed.id ||
              canonicalJson(view.state) !== canonicalJson(previewed.after)
            ) {
              throw readbackMismatch(proposal.preview.resultVersion, stored.version);
            }
          }
          const receipt = {
            id: receiptId,
            proposal_id: proposal.id,
            app_id: target.appId,
            env_id: target.envId,
            digest: proposal.digest,
            applied_version: applied.version,
            change_id: applied.changeId,
            state_digest: digestOf(stored.state),
            approvals: JSON.stringify(approvals),
            executed_by: JSON.stringify(authorityOf(principal)),
            executed_at: iso(deps.now()),
          };
          await repo.insertReceipt(trx, receipt);
          return repo.toReceipt(receipt);
        });
      try {
        return await run();
      } catch (err) {
        // Lost a race to another process on the unique receipt: answer the winner's receipt.
        if (!isUniqueViolation(err)) throw err;
        return run();
      }
    },

    async readback(principal, input) {
      const target = await resolveTarget(access, principal, input.appId, input.env, 'read');
      const row = await repo.findReceipt(db, target.envId, input.receiptId);
      if (!row) throw notFound(`Receipt ${input.receiptId}`);
      const receipt = repo.toReceipt(row);
      const [current, servedVersion] = await Promise.all([store.current(target), deps.servedVersion(target)]);
      const currentStateDigest = digestOf(current.state);
      return {
        receipt,
        observation: {
          currentVersion: current.version,
          servedVersion,
          appliedStateDigest: receipt.stateDigest,
          currentStateDigest,
          inEffect: currentStateDigest === receipt.stateDigest,
          superseded: current.version > receipt.appliedVersion,
          observedAt: iso(deps.now()),
        },
      };
    },

    register(...added) {
      if (sealed) throw new Error('change kinds are registered before the authority routes are built');
      for (const handler of added) {
        if (isBuiltin(handler.kind) || handlers.has(handler.kind))
          throw new Error(`change kind ${handler.kind} is registered twice`);
        handlers.set(handler.kind, { handler, validate: bodyValidator(handler.body) });
      }
    },

    changeBodies() {
      sealed = true;
      return {
        ...CHANGE_BODY_SCHEMAS,
        ...Object.fromEntries([...handlers].map(([kind, h]) => [kind, h.handler.body])),
      };
    },
  };
}
