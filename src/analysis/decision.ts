// analysisDecision (issue 12): information for people, never acted on automatically.
//   guardrail_violation  a guardrail metric is breached in some treatment: its fixed-horizon relative
//                        interval lies wholly beyond the tolerated degradation (guardrailStatus). A
//                        harm shown at the experiment's alpha is never hidden behind the others, so
//                        it comes first, whatever the units and health say;
//   not_ready            some variant has fewer than minimumUnitsPerVariant units, or health fails;
//   evidence_qualified   health passes and the primary metric's interval for some treatment excludes 0
//                        (the sequential interval when the experiment is analysed sequentially);
//   continue             otherwise.
// The relative effect's interval is the one read (the scale results are shown on); when the relative
// effect is unavailable (control mean 0) the absolute one is.
import type { HealthStatus } from './health.js';
import type { ComparisonResult, EffectResult } from './inference.js';

export type AnalysisDecision = 'guardrail_violation' | 'not_ready' | 'evidence_qualified' | 'continue';

export interface DecisionInput {
  minimumUnitsPerVariant: number;
  /** Units of every variant, control included. */
  unitsPerVariant: readonly number[];
  srm: HealthStatus;
  multipleExposures: HealthStatus;
  /** The primary metric's comparisons of each treatment with control, on the scale the experiment uses. */
  primary: readonly ComparisonResult[];
  /** The status of every guardrail metric in every treatment (none when the experiment has no guardrails). */
  guardrails?: readonly GuardrailStatus[];
}

/** Health fails on a sample-ratio mismatch or too many multiple exposures. */
export function healthPasses(srm: HealthStatus, multipleExposures: HealthStatus): boolean {
  return srm !== 'unhealthy' && multipleExposures !== 'unhealthy';
}

export function decisiveEffect(c: ComparisonResult): EffectResult | null {
  return c.relative ?? c.absolute;
}

export function intervalExcludesZero(e: EffectResult): boolean {
  return e.ci[0] > 0 || e.ci[1] < 0;
}

export function analysisDecision(input: DecisionInput): AnalysisDecision {
  if (input.unitsPerVariant.length < 2) return 'not_ready';
  if (input.guardrails?.includes('breached')) return 'guardrail_violation';
  if (input.unitsPerVariant.some((u) => u < input.minimumUnitsPerVariant)) return 'not_ready';
  if (!healthPasses(input.srm, input.multipleExposures)) return 'not_ready';
  const qualified = input.primary.some((c) => {
    const e = decisiveEffect(c);
    return e !== null && intervalExcludesZero(e);
  });
  return qualified ? 'evidence_qualified' : 'continue';
}

export type GuardrailStatus = 'breached' | 'within' | 'unknown';

/**
 * A guardrail is breached when the fixed-horizon interval of its relative effect lies wholly beyond
 * the allowed degradation: for a metric where higher is better, the upper bound is below
 * −maxRelativeDegradation; where lower is better, the lower bound is above +maxRelativeDegradation.
 */
export function guardrailStatus(
  comparison: ComparisonResult,
  maxRelativeDegradation: number,
  higherIsBetter: boolean,
): GuardrailStatus {
  const e = comparison.relative;
  if (!e) return 'unknown';
  return higherIsBetter
    ? e.ci[1] < -maxRelativeDegradation
      ? 'breached'
      : 'within'
    : e.ci[0] > maxRelativeDegradation
      ? 'breached'
      : 'within';
}
