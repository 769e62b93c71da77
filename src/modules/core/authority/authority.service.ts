// The four-eyes authority workflow: scoped capability tokens, immutable proposals (validated and
// previewed at proposal time, proposal-previews.ts), approvals by someone other than the proposer,
// and execution (proposal-execution.ts) — the change applied as one new version, read back inside
// the same transaction and compared with the preview, at most once per proposal, then observed with
// read-back. Kinds beyond core's flag kinds are registered by the modules that own them
// (change-kinds.ts, change-kind-registry.ts, decision 0029).
import type { TObject } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import { isUniqueViolation } from '../../../db/constraint-errors.js';
import { inTransaction, type Executor } from '../../../db/transaction.js';
import type { AppAccess, Capability } from '../../../platform/app-access.js';
import { digestOf } from '../../../platform/canonical-json.js';
import { AppError, conflict, notFound } from '../../../platform/errors.js';
import { newId } from '../../../platform/ids.js';
import type { Principal, UserPrincipal } from '../../../platform/principal.js';
import { canonicalEnvSlug } from '../apps/index.js';
import type { AuthService } from '../auth/index.js';
import { authorityOf } from '../journal/index.js';
import { resolveTarget, type ConfigMutator, type ConfigStateStore, type EnvironmentTarget } from '../config/index.js';
import type { Approval, Proposal, ProposalStatus, Receipt } from './authority.model.js';
import * as repo from './authority.repository.js';
import type { ChangeEditDeps } from './change-edits.js';
import { createChangeKindRegistry } from './change-kind-registry.js';
import type { ChangeKindHandler } from './change-kinds.js';
import { digestMismatch, proposalNotFound } from './proposal-conflicts.js';
import { executeProposal, type ExecuteInput } from './proposal-execution.js';
import { previewProposal, type ProposeInput } from './proposal-previews.js';
import { proposalRowOf, proposalViews, type ProposalView } from './proposal-views.js';

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
  execute(principal: Principal, input: ExecuteInput): Promise<Receipt>;
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

export function createAuthorityService(deps: AuthorityDeps): AuthorityService {
  const { db, access, store } = deps;
  const iso = (ms: number) => new Date(ms).toISOString();
  const registry = createChangeKindRegistry();
  const views = (
    executor: Executor,
    target: EnvironmentTarget & { requiredApprovals: number },
    rows: repo.ProposalRow[],
  ) => proposalViews(deps, registry, executor, target, rows);

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
      registry.validate(input.change);
      const target = await resolveTarget(access, principal, input.appId, input.env, 'propose');
      const id = newId('prp');
      const preview = await previewProposal(deps, registry, principal, target, input, id);
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
        const row = await proposalRowOf(trx, target, input.proposalId, true);
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

    execute: (principal, input) => executeProposal(deps, registry, principal, input),

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

    register: (...added) => registry.register(...added),
    changeBodies: () => registry.changeBodies(),
  };
}
