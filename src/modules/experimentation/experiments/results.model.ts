// The results document of an experiment iteration (issue 12) and the port through which other slices
// (rollout plans, cleanup) read the newest one. Aggregation runs write it; nothing else computes it.
import type {
  AnalysisDecision,
  GuardrailStatus,
  MetricComparison,
  MultipleExposuresResult,
  SrmResult,
} from '../../../analysis/index.js';

export type AggregationRunState = 'queued' | 'running' | 'succeeded' | 'failed' | 'superseded';
export type AggregationRunCause = 'schedule' | 'recompute' | 'iteration_change';

/** The newest event an aggregate includes, in the order raw events were received. */
export interface AggregateWatermark {
  /** Unix ms of the newest included event's arrival (as the recompute request's priorWatermark). */
  receivedAt: number;
  eventId: string;
}

export interface AggregationRun {
  id: string;
  state: AggregationRunState;
  cause: AggregationRunCause;
  watermark: AggregateWatermark | null;
  startedAt: string | null;
  finishedAt: string | null;
  diagnostics: string[];
  remediation: string | null;
}

export interface ResultsVariant {
  key: string;
  units: number;
  metrics: Record<string, { n: number; mean: number; variance: number }>;
}

export interface GuardrailHealth {
  metricId: string;
  variant: string;
  /** The fixed-horizon relative interval of the guardrail metric (treatment against control). */
  ci: [number, number] | null;
  maxRelativeDegradation: number;
  /** `breached` when the interval lies wholly beyond the tolerated degradation in the metric's bad direction. */
  status: GuardrailStatus;
}

export interface ExperimentResults {
  experimentId: string;
  iterationId: string;
  iterationRevision: number;
  analysisEngineVersion: 'descriptive-v1';
  aggregate: {
    runId: string;
    pinnedAt: string;
    watermark: AggregateWatermark;
    variants: ResultsVariant[];
  };
  inference: { fixedHorizon: MetricComparison[]; sequential?: MetricComparison[] };
  analysisDecision: AnalysisDecision;
  health: {
    srm: SrmResult;
    multipleExposures: MultipleExposuresResult;
    guardrails: GuardrailHealth[];
  };
  freshness: { computedAt: string; lagSeconds: number };
  diagnostics: string[];
}

/** How rollout plans and cleanup read results: the newest pinned aggregate's analysis, or null when no run has succeeded. */
export interface ExperimentResultsSource {
  latest(input: {
    appId: string;
    envId: string;
    experimentId: string;
    iterationId: string;
    iterationRevision: number;
  }): Promise<ExperimentResults | null>;
}
