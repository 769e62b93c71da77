// What the stale-flag report says (docs/cleanup.md): an inventory of every flag in every chosen
// environment, a reconciliation against the code references the caller sends, readiness per flag,
// and a staged, deterministic removal plan. Pure data: the service fills it, nothing here does I/O.

export const SERVING_SHAPES = ['static', 'fully_rolled_out', 'targeted', 'split', 'experiment'] as const;
export type ServingShape = (typeof SERVING_SHAPES)[number];

export interface CodeReference {
  flagKey: string;
  path?: string;
  line?: number;
}

export interface LastChange {
  at: string;
  changeId: string | null;
  operation: string | null;
}

export interface EvaluationUsage {
  /** Evaluations (telemetry `decision` events) inside the staleness window. */
  count: number;
  /** Start of the newest hour in which an evaluation was seen (rollups are hourly); null if none retained. */
  lastSeenAt: string | null;
}

export interface InventoryEntry {
  flagKey: string;
  env: string;
  type: string;
  /** The flag's default value (`value`). */
  value: unknown;
  enabled: boolean;
  servingShape: ServingShape;
  /** The one value every subject gets, when the shape serves one (static, fully rolled out); else null. */
  servedValue: unknown;
  servesSingleValue: boolean;
  lastChange: LastChange | null;
  evaluations: EvaluationUsage;
  /** Flags of this environment that name this flag as a prerequisite. */
  dependents: string[];
  experiments: string[];
  rolloutPlans: string[];
}

export interface ReadinessBlocker {
  code: string;
  message: string;
  env?: string;
}

export interface Readiness {
  flagKey: string;
  ready: boolean;
  reasons: string[];
  blockers: ReadinessBlocker[];
}

export type PlanStep =
  | { stage: 'make_static'; env: string; flagKey: string; value: unknown }
  | { stage: 'remove_code_references'; flagKey: string; references: CodeReference[] }
  | { stage: 'delete_flag'; flagKey: string; envs: string[] };

export interface CleanupPlan {
  stages: { stage: PlanStep['stage']; steps: PlanStep[] }[];
  digest: string;
}

export interface CleanupReport {
  asOf: string;
  staleAfterDays: number;
  envs: string[];
  inventory: InventoryEntry[];
  reconcile: {
    /** Keys the code references that exist in none of the chosen environments. */
    missingInService: { flagKey: string; references: CodeReference[] }[];
    /** Flags no code reference names; null when no references were sent (nothing to compare). */
    unreferencedInCode: string[] | null;
    /** Flags whose environments disagree on type or default value. */
    inconsistentAcrossEnvs: { flagKey: string; environments: { env: string; type: string; value: unknown }[] }[];
  };
  readiness: Readiness[];
  plan: CleanupPlan;
}
