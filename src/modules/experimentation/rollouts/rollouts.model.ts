// Rollout plans as the domain sees them (issue 12, decision 0025): a stepwise rollout of one
// experiment variant on the experiment's flag, guarded by the experiment's aggregates.
import type { JournalAuthority } from '../../core/journal/index.js';

export const PLAN_STATES = ['draft', 'active', 'paused', 'completed', 'cancelled', 'rolled_back'] as const;
export type PlanState = (typeof PLAN_STATES)[number];

/** The states a transition request may name (rolled_back is reached only by approving a rollback). */
export const TRANSITION_TARGETS = ['active', 'paused', 'completed', 'cancelled'] as const;
export type TransitionTarget = (typeof TRANSITION_TARGETS)[number];

/** Moves a transition may make; `active → active` moves to another step. */
export const PLAN_TRANSITIONS: Readonly<Record<PlanState, readonly TransitionTarget[]>> = {
  draft: ['active', 'cancelled'],
  active: ['active', 'paused', 'completed', 'cancelled'],
  paused: ['active', 'completed', 'cancelled'],
  completed: [],
  cancelled: [],
  rolled_back: [],
};

export const RECOMMENDATION_KINDS = [
  'proceed',
  'recommend_pause',
  'recommend_rollback',
  'invalid_data',
  'stale',
] as const;
export type RecommendationKind = (typeof RECOMMENDATION_KINDS)[number];

/** Recommendations approval acts on; the others only inform. */
export const ACTIONABLE: ReadonlySet<RecommendationKind> = new Set([
  'proceed',
  'recommend_pause',
  'recommend_rollback',
]);

/** An aggregate older than this makes a recommendation `stale`. */
export const STALE_AGGREGATE_MS = 2 * 3_600_000;

export interface RolloutStep {
  /** 0 < percentage ≤ 100, increasing, the last one 100. */
  percentage: number;
  minDurationHours: number;
}

export interface RolloutGuardrail {
  metricId: string;
  revision: number;
  /** The largest tolerated relative degradation, as a fraction (0.05 = 5 %). */
  maxRelativeDegradation: number;
}

export interface Recommendation {
  kind: RecommendationKind;
  reasons: string[];
  evidence: Record<string, unknown>;
  /** SHA-256 over the plan, its version and the recommendation's content: what approve names. */
  digest: string;
  evaluatedAt: string;
  /** The plan version it was evaluated at. */
  planVersion: number;
  approvedAt?: string;
}

export interface PlanEvent {
  at: string;
  action: 'created' | 'transition' | 'recommendation' | 'approval';
  from?: PlanState;
  to?: PlanState;
  step?: number | null;
  /** The config version the change wrote, when it changed what the flag serves. */
  configVersion?: number;
  recommendation?: RecommendationKind;
  /** The reason given (a stop in a protected environment must give one). */
  reason?: string;
  by: JournalAuthority;
}

export interface RolloutPlan {
  id: string;
  appId: string;
  env: string;
  experimentId: string;
  flagKey: string;
  iterationId: string;
  planVersion: number;
  state: PlanState;
  variant: string;
  steps: RolloutStep[];
  guardrails: RolloutGuardrail[];
  minimumUnitsPerStep: number | null;
  /** Index into steps; null before the plan is active. */
  currentStep: number | null;
  stepStartedAt: string | null;
  /** The config version restored by an approved rollback. */
  baseVersion: number | null;
  recommendation: Recommendation | null;
  history: PlanEvent[];
  createdAt: string;
  updatedAt: string;
  createdBy: JournalAuthority;
}

/** The problems of a step list, empty when it is valid. */
export function stepProblems(steps: readonly RolloutStep[]): string[] {
  const problems: string[] = [];
  steps.forEach((s, i) => {
    if (!(s.percentage > 0 && s.percentage <= 100)) problems.push(`steps[${i}].percentage must be in (0, 100]`);
    if (i > 0 && !(s.percentage > steps[i - 1]!.percentage))
      problems.push(`steps[${i}].percentage must be greater than the step before`);
  });
  if (steps.length > 0 && steps[steps.length - 1]!.percentage !== 100) problems.push('the last step must be 100');
  return problems;
}
