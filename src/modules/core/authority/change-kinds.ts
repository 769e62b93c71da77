// The authority workflow's extension point (decision 0029). Core cannot reach the subsystems above
// it, so the change kinds they own — experiments, layers, holdouts, rollout plans — are handed to
// the authority service at composition time (src/app.ts): each says what its body is, how to make
// the change exactly as its direct route would (cleared by the proposal), and how to read the
// resource it acts on. The workflow does the rest: the preview (the change made in a transaction
// that is rolled back), approvals, execution at most once, the read-back compared with the preview.
import { Type, type TObject, type TProperties } from '@sinclair/typebox';
import type { Executor } from '../../../db/transaction.js';
import type { Principal } from '../../../platform/principal.js';
import type { Clearance, EnvironmentTarget } from '../config/index.js';

/** The resource a change acts on, as reviewers compare it: stable fields only (no timestamps). */
export interface ResourceView {
  type: string;
  id: string;
  /** null while the resource does not exist (before a creation). */
  state: Record<string, unknown> | null;
}

export type ProposalClearance = Extract<Clearance, { type: 'proposal' }>;

export interface ChangeKindCall {
  principal: Principal;
  target: EnvironmentTarget;
  body: Record<string, unknown>;
  /** Pass it on to the module's service: it clears the policy, sets source `authority`, adds the proposal to the journal. */
  clearance: ProposalClearance;
  /** The proposal's reason, for moves that record one when their body gives none. */
  reason: string | null;
}

export interface ChangeKindHandler {
  /** `<resource>.<move>`, e.g. experiment.ramp. */
  kind: string;
  /** The body: the direct route's without appId and env, with the target's ids (validation and OpenAPI). */
  body: TObject;
  /** What the body acts on, read in `executor` (the proposal id names what a creation will create). */
  view(
    executor: Executor,
    target: EnvironmentTarget,
    body: Record<string, unknown>,
    proposalId: string,
  ): Promise<ResourceView>;
  /** Makes the change inside `trx` as the direct route would; throws its errors (400, 404, 409). */
  apply(trx: Executor, call: ChangeKindCall): Promise<void>;
}

/**
 * A direct route's body schema as a proposal carries it: `ids` (the target's ids) first, then the
 * route's fields without appId, env and the `omit`ted ones (dryRun, idempotency keys).
 */
export function proposalBody(schema: TObject, ids: TProperties, omit: string[], title: string): TObject {
  const skip = new Set(['appId', 'env', ...omit]);
  const fields = Object.fromEntries(Object.entries(schema.properties).filter(([k]) => !skip.has(k)));
  return Type.Object({ ...ids, ...fields }, { additionalProperties: false, title });
}
