// The four-eyes authority workflow: scoped capability tokens, immutable proposals (validated and
// previewed at proposal time), approvals by someone other than the proposer, and execution — the
// change applied as one new version through the config mutator, read back inside the same
// transaction and compared with the preview, at most once per proposal (its row is locked and its
// receipt unique), then observed with read-back.
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
import { diffStates, resolveTarget, type ConfigMutator, type ConfigStateStore, type EnvironmentTarget } from '../config/index.js';
import { statusOf, type Approval, type Proposal, type ProposalStatus, type ProposedChange, type Receipt } from './authority.model.js';
import * as repo from './authority.repository.js';
import { editFor, validateChangeBody, type ChangeEditDeps } from './change-edits.js';

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
  mintToken(principal: Principal, input: TokenInput): Promise<{ token: string; id: string; capabilities: Capability[]; appIds: string[]; envs: string[] | null; expiresAt: string }>;
  propose(principal: Principal, input: ProposeInput): Promise<Proposal>;
  list(principal: Principal, query: { appId: string; env: string; status?: ProposalStatus; limit?: number }): Promise<ProposalView[]>;
  show(principal: Principal, appId: string, id: string): Promise<ProposalView>;
  approve(principal: Principal, input: { appId: string; env: string; proposalId: string; digest: string; comment?: string }): Promise<Approval>;
  execute(principal: Principal, input: { appId: string; env: string; proposalId: string; digest: string }): Promise<Receipt>;
  readback(principal: Principal, input: { appId: string; env: string; receiptId: string }): Promise<{ receipt: Receipt; observation: Observation }>;
}

const DEFAULT_TOKEN_TTL_SECONDS = 3600;
const DEFAULT_PROPOSAL_SECONDS = 604_800;
const LIST_LIMIT = 100;

const proposalNotFound = (id: string) => notFound(`Proposal ${id}`);
const digestMismatch = (digest: string) =>
  conflict('digest_mismatch', 'The digest does not match the proposal.', {
    metadata: { digest },
    resolution: 'Read the proposal (GET /api/v1/authority/proposals/{id}), review it, and send its digest.',
  });

export function createAuthorityService(deps: AuthorityDeps): AuthorityService {
  const { db, access, store, mutator } = deps;
  const iso = (ms: number) => new Date(ms).toISOString();

  async function views(executor: Executor, target: EnvironmentTarget & { requiredApprovals: number }, rows: repo.ProposalRow[]): Promise<ProposalView[]> {
    const ids = rows.map((r) => r.id);
    // Sequential reads on the caller's executor: inside a SQLite transaction there is one connection.
    const approvals = await repo.approvalsOf(executor, ids);
    const receipts = await repo.receiptsOf(executor, ids);
    const current = (await store.readIn(executor, target.envId)) ?? { version: 0 };
    const now = deps.now();
    return rows.map((row) => {
      const proposal = repo.toProposal(row);
      const mine = approvals.filter((a) => a.proposal_id === row.id).map(repo.toApproval);
      const receipt = receipts.find((r) => r.proposal_id === row.id);
      const status = statusOf(proposal, { receipt: !!receipt, approvals: mine.length, currentVersion: current.version, requiredApprovals: target.requiredApprovals, now });
      return { proposal, approvals: mine, receipt: receipt ? repo.toReceipt(receipt) : null, status };
    });
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
      return { token: issued.token, id: issued.id, capabilities: scope.capabilities, appIds: scope.appIds, envs: scope.envs, expiresAt };
    },

    async propose(principal, input) {
      validateChangeBody(input.change);
      const target = await resolveTarget(access, principal, input.appId, input.env, 'propose');
      const current = await store.current(target);
      if (input.baseVersion !== current.version) throw versionConflict(current.version);
      // Validated exactly as the route would (its 400s), and previewed against the base state.
      const edit = await editFor(deps, db, target, current, input.change);
      const changes = diffStates(current.state, edit.state);
      const createdAt = deps.now();
      const body = {
        id: newId('prp'),
        appId: target.appId,
        env: target.env,
        baseVersion: current.version,
        change: input.change,
        preview: { resultVersion: changes.length > 0 ? current.version + 1 : current.version, changes },
        proposedBy: authorityOf(principal),
        requiredApprovals: target.requiredApprovals,
        reason: input.reason ?? null,
        createdAt: iso(createdAt),
        expiresAt: iso(createdAt + (input.expiresInSeconds ?? DEFAULT_PROPOSAL_SECONDS) * 1000),
      };
      const proposal: Proposal = { ...body, digest: digestOf(body) };
      await repo.insertProposal(db, {
        id: proposal.id, app_id: proposal.appId, env_id: target.envId, env: proposal.env, base_version: proposal.baseVersion,
        change: JSON.stringify(proposal.change), preview: JSON.stringify(proposal.preview), digest: proposal.digest,
        proposed_by: JSON.stringify(proposal.proposedBy), proposer_user_id: principal.type === 'cli' ? principal.userId : null,
        required_approvals: proposal.requiredApprovals, reason: proposal.reason, created_at: proposal.createdAt, expires_at: proposal.expiresAt,
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
          throw new AppError(403, 'self_approval_forbidden', 'You proposed this change; someone else must approve it.', {
            resolution: 'Ask another owner or editor of the app to approve the proposal.',
          });
        }
        const existing = (await repo.approvalsOf(trx, [row.id])).find((a) => a.approver_user_id === user.userId);
        if (existing) return repo.toApproval(existing);
        if (input.digest !== row.digest) throw digestMismatch(row.digest);
        const [view] = await views(trx, target, [row]);
        if (view!.status === 'executed' || view!.status === 'expired' || view!.status === 'stale') {
          throw conflict('proposal_closed', `The proposal is ${view!.status} and takes no more approvals.`, {
            metadata: { status: view!.status },
            resolution: view!.status === 'stale' ? 'Propose the change again against the current version.' : 'Propose a new change if one is still needed.',
          });
        }
        const approval = { id: newId('apv'), proposal_id: row.id, approver_user_id: user.userId, digest: row.digest, comment: input.comment ?? null, created_at: iso(deps.now()) };
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
      const run = () => inTransaction(db, async (trx) => {
        const target = await resolveTarget(access, principal, input.appId, input.env, 'execute', trx);
        // Locked: a concurrent execute (any process) waits here, then finds the receipt below.
        const row = await proposalOf(trx, target, input.proposalId, true);
        if (input.digest !== row.digest) throw digestMismatch(row.digest);
        const [done] = await repo.receiptsOf(trx, [row.id]);
        if (done) return repo.toReceipt(done);
        const proposal = repo.toProposal(row);
        if (Date.parse(proposal.expiresAt) <= deps.now()) {
          throw conflict('proposal_expired', `The proposal expired at ${proposal.expiresAt}.`, { resolution: 'Propose the change again.' });
        }
        const approvals = (await repo.approvalsOf(trx, [row.id])).map(repo.toApproval);
        if (approvals.length < target.requiredApprovals) {
          throw conflict('approvals_missing', `The proposal has ${approvals.length} of the ${target.requiredApprovals} approvals environment ${target.env} requires.`, {
            metadata: { approvals: approvals.length, requiredApprovals: target.requiredApprovals },
            resolution: 'Ask other owners or editors to approve it (POST /api/v1/authority/approve), then execute again.',
          });
        }
        const receiptId = newId('rcp');
        let base: string | null = null;
        const applied = await mutator.apply(
          trx,
          { target, source: 'authority', authority: authorityOf(principal), approvedProposal: proposal.id },
          async (current) => {
            if (current.version !== proposal.baseVersion) {
              throw conflict('stale_proposal', `The environment moved from version ${proposal.baseVersion} to ${current.version} since the proposal.`, {
                metadata: { baseVersion: proposal.baseVersion, currentVersion: current.version },
                resolution: 'Propose the change again against the current version.',
              });
            }
            base = canonicalJson(current.state);
            const edit = await editFor(deps, trx, target, current, proposal.change);
            return {
              ...edit,
              context: { ...edit.context, proposalId: proposal.id, receiptId, proposedBy: proposal.proposedBy, approvers: approvals.map((a) => a.approvedBy) },
            };
          },
        );
        // Read back inside the transaction: what is now stored must be what the approvers saw.
        const stored = await store.readIn(trx, target.envId);
        const observed = stored && base !== null ? diffStates(JSON.parse(base), stored.state) : null;
        if (!stored || stored.version !== proposal.preview.resultVersion || canonicalJson(observed) !== canonicalJson(proposal.preview.changes)) {
          throw conflict('readback_mismatch', 'The applied state differs from the previewed result; nothing was applied.', {
            metadata: { expectedVersion: proposal.preview.resultVersion, observedVersion: stored?.version ?? null },
            resolution: 'Read the proposal and the current configuration; propose the change again.',
          });
        }
        const receipt = {
          id: receiptId, proposal_id: proposal.id, app_id: target.appId, env_id: target.envId, digest: proposal.digest,
          applied_version: applied.version, change_id: applied.changeId, state_digest: digestOf(stored.state),
          approvals: JSON.stringify(approvals), executed_by: JSON.stringify(authorityOf(principal)), executed_at: iso(deps.now()),
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
  };
}
