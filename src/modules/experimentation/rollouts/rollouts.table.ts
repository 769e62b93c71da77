export interface RolloutPlansTable {
  /** rop_… or the caller's planId. */
  id: string;
  app_id: string;
  env_id: string;
  experiment_id: string;
  flag_key: string;
  /** The experiment iteration whose aggregates guard the plan. */
  iteration_id: string;
  /** The compare-and-swap field: raised by every change. */
  plan_version: number;
  /** draft | active | paused | completed | cancelled | rolled_back */
  state: string;
  variant: string;
  /** JSON of RolloutStep[]. */
  steps: string;
  /** JSON of RolloutGuardrail[]. */
  guardrails: string;
  minimum_units_per_step: number | null;
  current_step: number | null;
  step_started_at: string | null;
  /** The environment's config version just before the plan first served its variant. */
  base_version: number | null;
  /** JSON of the stored Recommendation. */
  recommendation: string | null;
  /** JSON of PlanEvent[]. */
  history: string;
  created_at: string;
  updated_at: string;
  /** JSON of the journal authority. */
  created_by: string;
}

export interface RolloutsTables {
  rollout_plans: RolloutPlansTable;
}
