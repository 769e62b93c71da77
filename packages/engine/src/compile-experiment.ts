// Assignment of subjects to a running experiment (issue 11), compiled once per config version like
// the flag it runs on. For the experiment's flag, after overrides:
//   targeting → holdout → layer range (in a layer) or allocation → variant by weight
// Everyone not assigned gets the flag's ordinary evaluation, annotated with why. Buckets:
//   holdout     bucket(holdout.salt, key)        < percentage × 100  → held out
//   layer       bucket(layer.salt, key)          in [start, end)     → in the experiment
//   allocation  bucket(iteration salt, key)      < allocation × 100  → in the experiment
//   variant     bucket(iteration salt + ":variant", key) by the variants' consecutive ranges
// The variant draw is independent of the allocation draw, so a ramp (same salt, new allocation)
// adds or removes subjects at the allocation edge and never moves an assigned subject.
import { createBucketer, rolloutThreshold, variantBounds, variantIndexOf, type Bucketer } from './bucketing.js';
import { variantSaltOf, type ServedExperiment } from './experiment-model.js';
import type { EvaluationResult, ExperimentDetail, ExperimentReason, FlagType } from './model.js';
import { compileCondition, type ContextPredicate } from './operators.js';
import { makeResult } from './results.js';

type Context = Readonly<Record<string, unknown>>;
type Ordinary = (context: Context, targetingKey: string | undefined) => EvaluationResult;

/** The experiment step of a flag: decides, or annotates the ordinary evaluation. */
export type ExperimentStep = (
  context: Context,
  targetingKey: string | undefined,
  ordinary: Ordinary,
) => EvaluationResult;

/** Where a subject lands, without evaluating anything else: for tests, tools and SDKs. */
export interface Assignment {
  reason: ExperimentReason;
  /** Index into the experiment's variants when assigned, else -1. */
  variantIndex: number;
}

const VALUE_CHECK: Record<FlagType, (value: unknown) => boolean> = {
  bool: (v) => typeof v === 'boolean',
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  json: (v) => v !== undefined,
};

/** Whether the experiment can run on a flag of this type: variant values of another type (the flag
 * changed type after the experiment started) would serve values the caller cannot use. */
export function experimentFits(experiment: ServedExperiment, type: FlagType): boolean {
  return experiment.variants.length > 0 && experiment.variants.every((v) => VALUE_CHECK[type](v.value));
}

/** The pure assignment function of one experiment. */
export function compileAssignment(
  experiment: ServedExperiment,
): (context: Context, targetingKey: string | undefined) => Assignment {
  const predicates: ContextPredicate[] = experiment.targeting.map(compileCondition);
  const holdout = experiment.holdout;
  const holdoutBucket: Bucketer | null = holdout ? createBucketer(holdout.salt) : null;
  const holdoutThreshold = holdout ? rolloutThreshold(holdout.percentage) : 0;
  const layer = experiment.layer;
  const layerBucket: Bucketer | null = layer ? createBucketer(layer.salt) : null;
  const allocationBucket = createBucketer(experiment.salt);
  const allocationThreshold = rolloutThreshold(experiment.allocation);
  const variantBucket = createBucketer(variantSaltOf(experiment.salt));
  const bounds = variantBounds(experiment.variants.map((v) => v.weight));
  const out = (reason: ExperimentReason): Assignment => ({ reason, variantIndex: -1 });
  const NOT_TARGETED = out('not_targeted');
  const NOT_ALLOCATED = out('not_allocated');
  const HELD_OUT = out('holdout');
  const LAYER_EXCLUDED = out('layer_excluded');
  const assigned = experiment.variants.map((_, variantIndex): Assignment => ({ reason: 'assigned', variantIndex }));

  return (context, targetingKey) => {
    for (let i = 0; i < predicates.length; i++) if (!predicates[i]!(context)) return NOT_TARGETED;
    // Without a subject key nobody can be bucketed, so nobody is allocated.
    if (targetingKey === undefined) return NOT_ALLOCATED;
    if (holdoutBucket !== null && holdoutBucket(targetingKey) < holdoutThreshold) return HELD_OUT;
    if (layerBucket !== null) {
      const bucket = layerBucket(targetingKey);
      if (bucket < layer!.start || bucket >= layer!.end) return LAYER_EXCLUDED;
    } else if (allocationBucket(targetingKey) >= allocationThreshold) {
      return NOT_ALLOCATED;
    }
    return assigned[variantIndexOf(bounds, variantBucket(targetingKey))]!;
  };
}

/**
 * The step compileFlag runs after overrides. Results stay precomputed and shared: an assigned
 * subject gets one of the variants' results, anyone else the ordinary result annotated once per
 * (result, reason) — the ordinary results of a flag are a finite set built at compile time.
 */
export function compileExperimentStep(flagKey: string, experiment: ServedExperiment): ExperimentStep {
  const assign = compileAssignment(experiment);
  const detail = (reason: ExperimentReason, variant: string | null): ExperimentDetail =>
    Object.freeze({
      id: experiment.id,
      iterationId: experiment.iterationId,
      iterationRevision: experiment.iterationRevision,
      variant,
      inExperiment: variant !== null,
      reason,
    });
  const assigned = experiment.variants.map((v) =>
    makeResult(flagKey, v.value, 'SPLIT', 'none', { variant: v.key, experiment: detail('assigned', v.key) }),
  );
  const annotated = new Map<
    ExperimentReason,
    { detail: ExperimentDetail; results: Map<EvaluationResult, EvaluationResult> }
  >();
  const annotate = (result: EvaluationResult, reason: ExperimentReason): EvaluationResult => {
    let memo = annotated.get(reason);
    if (memo === undefined) {
      memo = { detail: detail(reason, null), results: new Map() };
      annotated.set(reason, memo);
    }
    let out = memo.results.get(result);
    if (out === undefined) {
      out = Object.freeze({ ...result, experiment: memo.detail });
      memo.results.set(result, out);
    }
    return out;
  };
  return (context, targetingKey, ordinary) => {
    const assignment = assign(context, targetingKey);
    if (assignment.variantIndex >= 0) return assigned[assignment.variantIndex]!;
    return annotate(ordinary(context, targetingKey), assignment.reason);
  };
}
