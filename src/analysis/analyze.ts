// descriptive-v1 over one aggregate: every treatment compared with control on every metric, health,
// and the decision. Pure: the caller reads the pinned aggregate and shapes the response.
import { analysisDecision, guardrailStatus, type AnalysisDecision, type GuardrailStatus } from './decision.js';
import {
  multipleExposures as multipleExposuresHealth,
  sampleRatioMismatch,
  type MultipleExposuresResult,
  type SrmResult,
} from './health.js';
import {
  DEFAULT_SEQUENTIAL_TUNING,
  fixedHorizonComparison,
  sequentialComparison,
  type ComparisonResult,
} from './inference.js';
import { describeStatistic, type VariantStatistic } from './sufficient-statistics.js';

export const ANALYSIS_ENGINE_VERSION = 'descriptive-v1';

export interface VariantAggregate {
  key: string;
  /** Configured traffic weight (any scale; SRM normalises). */
  weight: number;
  units: number;
  metrics: Record<string, VariantStatistic>;
}

export interface AnalysisInput {
  /** Control first. */
  variants: readonly VariantAggregate[];
  primaryMetricId: string | null;
  alpha: number;
  /** N* when the experiment uses sequential analysis. */
  sequential?: { tuning?: number } | null;
  minimumUnitsPerVariant: number;
  /** Subjects seen in more than one variant (excluded from `variants`). */
  multipleExposures: number;
  /** The experiment's guardrail metrics (each must be among the variants' metrics to be judged). */
  guardrails?: readonly GuardrailSpec[];
}

export interface GuardrailSpec {
  metricId: string;
  /** Direction `increase`: a drop is the harm; `decrease`: a rise is. */
  higherIsBetter: boolean;
  /** The largest tolerated relative degradation, as a fraction (0.05 = 5 %). */
  maxRelativeDegradation: number;
}

export interface GuardrailResult {
  metricId: string;
  variant: string;
  /** The fixed-horizon relative interval of the guardrail metric (treatment against control). */
  ci: [number, number] | null;
  maxRelativeDegradation: number;
  status: GuardrailStatus;
}

export interface MetricComparison extends ComparisonResult {
  metricId: string;
  variant: string;
}

export interface AnalysisResult {
  analysisEngineVersion: typeof ANALYSIS_ENGINE_VERSION;
  variants: { key: string; units: number; metrics: Record<string, { n: number; mean: number; variance: number }> }[];
  inference: { fixedHorizon: MetricComparison[]; sequential?: MetricComparison[] };
  health: { srm: SrmResult; multipleExposures: MultipleExposuresResult; guardrails: GuardrailResult[] };
  analysisDecision: AnalysisDecision;
}

export function analyzeExperiment(input: AnalysisInput): AnalysisResult {
  const [control, ...treatments] = input.variants;
  if (!control || treatments.length === 0)
    throw new RangeError('an analysis needs a control and at least one treatment');
  const tuning = input.sequential ? (input.sequential.tuning ?? DEFAULT_SEQUENTIAL_TUNING) : null;
  const fixedHorizon: MetricComparison[] = [];
  const sequential: MetricComparison[] = [];
  for (const treatment of treatments) {
    for (const [metricId, controlStatistic] of Object.entries(control.metrics)) {
      const treatmentStatistic = treatment.metrics[metricId];
      if (!treatmentStatistic) continue;
      fixedHorizon.push({
        metricId,
        variant: treatment.key,
        ...fixedHorizonComparison(controlStatistic, treatmentStatistic, input.alpha),
      });
      if (tuning !== null)
        sequential.push({
          metricId,
          variant: treatment.key,
          ...sequentialComparison(controlStatistic, treatmentStatistic, input.alpha, tuning),
        });
    }
  }
  const units = input.variants.map((v) => v.units);
  const srm = sampleRatioMismatch(
    units,
    input.variants.map((v) => v.weight),
  );
  const exposures = multipleExposuresHealth(
    input.multipleExposures,
    units.reduce((s, u) => s + u, 0),
  );
  // Guardrails read the fixed-horizon interval of every treatment, sequential or not.
  const guardrails: GuardrailResult[] = (input.guardrails ?? []).flatMap((g) =>
    treatments.map((t) => {
      const c = fixedHorizon.find((x) => x.metricId === g.metricId && x.variant === t.key);
      return {
        metricId: g.metricId,
        variant: t.key,
        ci: c?.relative?.ci ?? null,
        maxRelativeDegradation: g.maxRelativeDegradation,
        status: c ? guardrailStatus(c, g.maxRelativeDegradation, g.higherIsBetter) : ('unknown' as const),
      };
    }),
  );
  const decisive = tuning !== null ? sequential : fixedHorizon;
  const decision = analysisDecision({
    minimumUnitsPerVariant: input.minimumUnitsPerVariant,
    unitsPerVariant: units,
    srm: srm.status,
    multipleExposures: exposures.status,
    primary: input.primaryMetricId === null ? [] : decisive.filter((c) => c.metricId === input.primaryMetricId),
    guardrails: guardrails.map((g) => g.status),
  });
  return {
    analysisEngineVersion: ANALYSIS_ENGINE_VERSION,
    variants: input.variants.map((v) => ({
      key: v.key,
      units: v.units,
      metrics: Object.fromEntries(Object.entries(v.metrics).map(([id, s]) => [id, describeStatistic(s)])),
    })),
    inference: { fixedHorizon, ...(tuning !== null ? { sequential } : {}) },
    health: { srm, multipleExposures: exposures, guardrails },
    analysisDecision: decision,
  };
}
