// Experiments as the domain sees them: a definition with a lifecycle, revised under CAS, and the
// iterations that say who is assigned (salt and allocation), revised by ramps.
import type { Condition, Variant } from '@ensign/engine';
import type { JournalAuthority } from '../../core/journal/index.js';

export const EXPERIMENT_STATES = ['draft', 'running', 'paused', 'completed', 'archived'] as const;
export type ExperimentState = (typeof EXPERIMENT_STATES)[number];

/** The moves issue 11 allows; anything else is 409 invalid_transition. */
export const TRANSITIONS: Readonly<Record<ExperimentState, readonly ExperimentState[]>> = {
  draft: ['running'],
  running: ['paused', 'completed'],
  paused: ['running', 'completed'],
  completed: ['archived'],
  archived: [],
};

export interface MetricRef {
  metricId: string;
  revision: number;
}

export interface GuardrailRef extends MetricRef {
  /** The largest tolerated relative degradation, as a fraction (0.05 = 5 %). */
  maxRelativeDegradation: number;
}

export interface AnalysisSettings {
  alpha: number;
  sequential: boolean;
  sequentialTuning: number;
  cuped: boolean;
  minimumUnitsPerVariant: number;
}

export const DEFAULT_ANALYSIS: AnalysisSettings = {
  alpha: 0.05,
  sequential: false,
  sequentialTuning: 5000,
  cuped: false,
  minimumUnitsPerVariant: 100,
};

export interface ExperimentDefinition {
  name: string;
  hypothesis: string;
  flagKey: string;
  /** The first is the control. */
  variants: Variant[];
  /** Percent of eligible traffic; in a layer, the size of its bucket range. */
  allocation: number;
  layerId: string | null;
  holdoutId: string | null;
  primaryMetric: MetricRef;
  secondaryMetrics: MetricRef[];
  guardrailMetrics: GuardrailRef[];
  analysis: AnalysisSettings;
  targeting: Condition[];
  /** Recorded when completed with a winner. */
  winner: string | null;
  /** The latest lifecycle move, with the reason the caller gave (null before the first one). */
  lastTransition: { from: ExperimentState; to: ExperimentState; reason: string | null; at: string } | null;
}

/** Fields only a draft may change: they decide who is assigned what, and what is measured. */
export const DRAFT_ONLY_FIELDS = [
  'flagKey',
  'variants',
  'allocation',
  'layerId',
  'holdoutId',
  'primaryMetric',
  'secondaryMetrics',
  'guardrailMetrics',
  'targeting',
] as const;

export interface Iteration {
  id: string;
  number: number;
  revision: number;
  salt: string;
  allocation: number;
  startedAt: string;
  state: 'running' | 'paused' | 'completed';
}

export interface Experiment extends ExperimentDefinition {
  id: string;
  appId: string;
  env: string;
  key: string;
  revision: number;
  state: ExperimentState;
  /** The experiment's bucket range when it is in a layer (reserved at creation, released when archived). */
  layerRange: { start: number; end: number } | null;
  currentIteration: Iteration | null;
  createdAt: string;
  updatedAt: string;
  createdBy: JournalAuthority;
}
