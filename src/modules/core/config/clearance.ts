// How a write passes a protected environment's policy (requiredApprovals ≥ 1; decision 0029). Two
// ways besides none at all: the authority workflow executing (or previewing) an approved proposal,
// and an emergency stop — a move that only reduces exposure, made directly with a reason. Modules
// whose moves the policy governs take an optional clearance, check their permission, source and
// journal context through these helpers, and refuse a widening move made directly with 403
// approval_required naming the change kind to propose and the command that proposes it.
import { createHash } from 'node:crypto';
import type { Permission } from '../../../platform/app-access.js';
import { AppError, validationError } from '../../../platform/errors.js';
import { newId } from '../../../platform/ids.js';
import type { JournalSource } from '../journal/index.js';

export type Clearance =
  | {
      type: 'proposal';
      proposalId: string;
      /** `preview`: the dry run at proposal time (rolled back, announces nothing); `execute`: the real thing. */
      phase: 'preview' | 'execute';
      /** What every journal entry of the execution names: proposal, receipt, proposer, approvers. */
      context: Record<string, unknown>;
    }
  | { type: 'emergency'; reason: string };

/** The change a widening move should be proposed as: its kind, its body and the CLI command. */
export interface ProposalHint {
  kind: string;
  body: Record<string, unknown>;
  command: string;
}

export function approvalRequired(env: string, requiredApprovals: number, hint?: ProposalHint): AppError {
  const approvals = `${requiredApprovals} approval${requiredApprovals === 1 ? '' : 's'}`;
  if (!hint) {
    return new AppError(403, 'approval_required', `Environment ${env} is protected: changes need ${approvals}.`, {
      metadata: { requiredApprovals },
      resolution:
        'Use the authority workflow: POST /api/v1/authority/propose (ensign propose), have another member approve it (POST /api/v1/authority/approve), then POST /api/v1/authority/execute.',
    });
  }
  return new AppError(
    403,
    'approval_required',
    `Environment ${env} is protected: this move widens exposure and needs ${approvals}.`,
    {
      metadata: {
        requiredApprovals,
        changeKind: hint.kind,
        change: { kind: hint.kind, body: hint.body },
        command: hint.command,
      },
      resolution:
        `Propose it as change kind ${hint.kind}: ${hint.command} (POST /api/v1/authority/propose with change ${JSON.stringify({ kind: hint.kind, body: hint.body })}); ` +
        'another owner or editor approves it (ensign approve), then execute it (ensign execute). Stops that only reduce exposure are direct with a reason.',
    },
  );
}

/** Whom a cleared write checks: the proposer at preview, the executor at execution, else `need`. */
export function clearedPermission(clearance: Clearance | undefined, need: Permission): Permission {
  if (clearance?.type === 'proposal') return clearance.phase === 'preview' ? 'propose' : 'execute';
  return need;
}

/** The journal source of a cleared write: `authority` or `emergency`; else the caller's. */
export function clearedSource(clearance: Clearance | undefined, source: JournalSource): JournalSource {
  if (clearance?.type === 'proposal') return 'authority';
  if (clearance?.type === 'emergency') return 'emergency';
  return source;
}

/** What a cleared write adds to each journal entry's context. */
export function clearanceContext(clearance: Clearance | undefined): Record<string, unknown> {
  if (clearance?.type === 'proposal') return clearance.context;
  if (clearance?.type === 'emergency') return { reason: clearance.reason };
  return {};
}

/**
 * An id for a record a proposal creates (an iteration, a rollout plan): derived from the proposal
 * id, so the preview shows the very id execution creates; a fresh id otherwise.
 */
export function clearedId(clearance: Clearance | undefined, prefix: string): string {
  return clearance?.type === 'proposal' ? proposedId(clearance.proposalId, prefix) : newId(prefix);
}

/** The id a proposal gives the record of type `prefix` it creates: prp_X → <prefix>_X. */
export const proposedId = (proposalId: string, prefix: string) =>
  `${prefix}_${proposalId.slice(proposalId.indexOf('_') + 1)}`;

/** A bucketing salt a proposal draws: derived from the proposal id (so previewed exactly), else `fresh()`. */
export function clearedSalt(clearance: Clearance | undefined, purpose: string, fresh: () => string): string {
  if (clearance?.type !== 'proposal') return fresh();
  return createHash('sha256').update(`${purpose}/${clearance.proposalId}`).digest('base64url').slice(0, 16);
}

/**
 * The clearance a move made through its own route needs in `target`'s environment: none when the
 * environment is unprotected (or the move is already cleared); an emergency for a stop, which must
 * give a non-blank reason (400 otherwise); for anything else 403 approval_required with the change
 * kind to propose.
 */
export function clearDirectMove(
  target: { env: string; requiredApprovals: number },
  move: { stop: boolean; reason?: string | null; proposal: ProposalHint },
  clearance?: Clearance,
): Clearance | undefined {
  if (clearance || target.requiredApprovals === 0) return clearance;
  if (!move.stop) throw approvalRequired(target.env, target.requiredApprovals, move.proposal);
  if (!move.reason || move.reason.trim() === '') {
    throw validationError(
      `Environment ${target.env} is protected: an emergency stop must say why.`,
      [{ path: '/reason', message: 'is required for a stop in a protected environment' }],
      'Send the stop again with a reason (ensign … stop --reason "…"); it is journaled with source emergency.',
    );
  }
  return { type: 'emergency', reason: move.reason };
}

/**
 * The hint for a move refused in a protected environment: the change kind and body to propose, and
 * the `ensign propose <kind> <ids…> --app … --env …` command with the options that were given.
 */
export function proposalHint(
  kind: string,
  target: { appId: string; env: string },
  ids: string[],
  body: Record<string, unknown>,
  options: [string, string | number | undefined][],
): ProposalHint {
  const words = [`propose ${kind.replace('.', '-')}`, ...ids.map(shellWord)];
  words.push(`--app ${shellWord(target.appId)}`, `--env ${shellWord(target.env)}`);
  for (const [name, value] of options) if (value !== undefined) words.push(`--${name} ${shellWord(value)}`);
  return { kind, body, command: `ensign ${words.join(' ')}` };
}

/** A word for a shell command line: as is when plain, else single-quoted. */
export function shellWord(value: string | number): string {
  const text = String(value);
  return /^[A-Za-z0-9_.:@%+=,/-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
