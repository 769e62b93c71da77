// What a rollout plan's next move should be, from the newest results of its experiment iteration
// (issue 12). Pure: the service reads the results and the guardrails' directions.
// Precedence: invalid_data; stale (aggregate older than 2 hours, or a variant below the step's
// minimum units); recommend_rollback (a guardrail of the plan, or of the experiment, breached for the
// rolled variant); recommend_pause; stale again (a guardrail without an effect yet, a step younger
// than its minDurationHours); else proceed.
// Sequential evidence never produces proceed on its own: proceed means "no guardrail breached, health
// passing, data fresh and large enough", whatever the primary metric says.
import { createHash } from 'node:crypto';
import { guardrailStatus } from '../../../analysis/index.js';
import type { ExperimentResults } from '../experiments/index.js';
import {
  STALE_AGGREGATE_MS,
  type Recommendation,
  type RecommendationKind,
  type RolloutPlan,
} from './rollouts.model.js';

export interface RecommendationInput {
  plan: RolloutPlan;
  /** The plan's experiment iteration now: its id and revision. */
  iteration: { id: string; revision: number } | null;
  results: ExperimentResults | null;
  /** true when a higher value of the metric is better (direction `increase`). */
  higherIsBetter: (metricId: string) => boolean;
  now: number;
}

function digestOf(plan: RolloutPlan, body: Omit<Recommendation, 'digest' | 'evaluatedAt'>): string {
  const canonical = JSON.stringify([plan.id, body.planVersion, body.kind, body.reasons, body.evidence]);
  return createHash('sha256').update(canonical).digest('hex');
}

export function recommend(input: RecommendationInput): Recommendation {
  const { plan, results } = input;
  const decide = (kind: RecommendationKind, reasons: string[], evidence: Record<string, unknown>): Recommendation => {
    const body = { kind, reasons, evidence, planVersion: plan.planVersion };
    return { ...body, digest: digestOf(plan, body), evaluatedAt: new Date(input.now).toISOString() };
  };
  if (!input.iteration || input.iteration.id !== plan.iterationId) {
    return decide(
      'invalid_data',
      [`The experiment's current iteration is ${input.iteration?.id ?? 'none'}, not the plan's ${plan.iterationId}.`],
      { planIterationId: plan.iterationId, currentIterationId: input.iteration?.id ?? null },
    );
  }
  if (!results)
    return decide('stale', ['No aggregation run of the iteration has succeeded yet.'], {
      iterationId: plan.iterationId,
    });
  const base = {
    runId: results.aggregate.runId,
    pinnedAt: results.aggregate.pinnedAt,
    watermark: results.aggregate.watermark,
  };
  if (results.experimentId !== plan.experimentId || results.iterationId !== plan.iterationId) {
    return decide('invalid_data', ["The newest aggregate is not of the plan's experiment iteration."], {
      ...base,
      experimentId: results.experimentId,
      iterationId: results.iterationId,
    });
  }
  const control = results.aggregate.variants[0];
  const rolled = results.aggregate.variants.find((v) => v.key === plan.variant);
  if (!control || !rolled) return decide('invalid_data', [`The aggregate has no variant ${plan.variant}.`], base);

  const ageMs = input.now - Date.parse(results.aggregate.pinnedAt);
  const stale: string[] = [];
  if (ageMs > STALE_AGGREGATE_MS)
    stale.push(`The newest aggregate is ${Math.round(ageMs / 60_000)} minutes old (more than 2 hours).`);
  const minimum = plan.minimumUnitsPerStep;
  if (minimum !== null) {
    for (const v of [control, rolled])
      if (v.units < minimum)
        stale.push(`Variant ${v.key} has ${v.units} units, fewer than the ${minimum} a step needs.`);
  }
  const units = { [control.key]: control.units, [rolled.key]: rolled.units };
  if (stale.length > 0) return decide('stale', stale, { ...base, ageMinutes: Math.round(ageMs / 60_000), units });

  const guardrails = plan.guardrails.map((g) => {
    const comparison = results.inference.fixedHorizon.find(
      (c) => c.metricId === g.metricId && c.variant === plan.variant,
    );
    const status = comparison
      ? guardrailStatus(comparison, g.maxRelativeDegradation, input.higherIsBetter(g.metricId))
      : 'unknown';
    return {
      metricId: g.metricId,
      maxRelativeDegradation: g.maxRelativeDegradation,
      ci: comparison?.relative?.ci ?? null,
      status,
    };
  });
  const breached = guardrails.filter((g) => g.status === 'breached');
  // The experiment's own guardrails (what makes its analysisDecision guardrail_violation) count too,
  // for the variant this plan rolls out: a harm the experiment shows is never rolled further. A
  // breach in another treatment is not this plan's and does not stop it.
  const experimentBreached = results.health.guardrails.filter(
    (g) => g.variant === plan.variant && g.status === 'breached' && !breached.some((b) => b.metricId === g.metricId),
  );
  if (breached.length > 0 || experimentBreached.length > 0) {
    const reasons = [
      ...breached.map(
        (g) =>
          `Guardrail ${g.metricId}: the fixed-horizon relative interval [${g.ci?.[0]}, ${g.ci?.[1]}] lies wholly beyond the tolerated degradation of ${g.maxRelativeDegradation}.`,
      ),
      ...experimentBreached.map(
        (g) =>
          `Experiment guardrail ${g.metricId}: the fixed-horizon relative interval [${g.ci?.[0]}, ${g.ci?.[1]}] lies wholly beyond the experiment's tolerated degradation of ${g.maxRelativeDegradation} (analysisDecision ${results.analysisDecision}).`,
      ),
    ];
    const experimentEvidence =
      experimentBreached.length > 0
        ? {
            experimentGuardrails: experimentBreached.map(({ metricId, ci, maxRelativeDegradation, status }) => ({
              metricId,
              ci,
              maxRelativeDegradation,
              status,
            })),
          }
        : {};
    return decide('recommend_rollback', reasons, { ...base, guardrails, ...experimentEvidence, units });
  }
  const unhealthy: string[] = [];
  if (results.health.srm.status === 'unhealthy')
    unhealthy.push(`Sample-ratio mismatch: p = ${results.health.srm.pValue}.`);
  if (results.health.multipleExposures.status === 'unhealthy')
    unhealthy.push(`${results.health.multipleExposures.count} subjects were exposed to more than one variant.`);
  if (unhealthy.length > 0)
    return decide('recommend_pause', unhealthy, {
      ...base,
      srm: results.health.srm,
      multipleExposures: results.health.multipleExposures,
      units,
    });

  // Neither a guardrail that cannot be measured yet nor a step younger than its minimum duration
  // clears the next step (both only after rollback and pause, which they must never mask).
  const early: string[] = [];
  const unknown = guardrails.filter((g) => g.status === 'unknown').map((g) => g.metricId);
  if (unknown.length > 0) early.push(`No effect can be computed yet for guardrail(s) ${unknown.join(', ')}.`);
  const step = plan.currentStep === null ? null : plan.steps[plan.currentStep];
  if (step && plan.stepStartedAt !== null) {
    const ranHours = (input.now - Date.parse(plan.stepStartedAt)) / 3_600_000;
    if (ranHours < step.minDurationHours)
      early.push(`Step ${plan.currentStep} has run ${ranHours.toFixed(1)} of its ${step.minDurationHours} hours.`);
  }
  if (early.length > 0) return decide('stale', early, { ...base, guardrails, units });
  return decide('proceed', ["No guardrail is breached, the experiment's health passes and the data are fresh."], {
    ...base,
    guardrails,
    units,
    analysisDecision: results.analysisDecision,
  });
}
