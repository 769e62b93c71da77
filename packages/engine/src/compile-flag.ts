// Compiles one validated flag definition into closures plus every result it can answer.
// Evaluation order (contract section 4, docs/engine.md): the off switch → prerequisites → overrides
// → running experiment (compile-experiment.ts) → rules in order → variants or rollout → value.
import type { EvaluationResult, FlagDefinition, FlagType, Rollout, Rule } from './model.js';
import { createBucketer, rolloutThreshold, variantBounds, variantIndexOf } from './bucketing.js';
import { isScalar, jsonEqual } from './json-value.js';
import { compileCondition, type ContextPredicate } from './operators.js';
import { errorResult, makeResult, typeMismatchResult } from './results.js';
import { compileExperimentStep } from './compile-experiment.js';
import type { ServedExperiment } from './experiment-model.js';

type Context = Readonly<Record<string, unknown>>;

/**
 * `run` takes a context already checked by the flag set and its normalised targeting key
 * (undefined when absent or empty), so prerequisites reuse both without checking again.
 */
export interface CompiledFlag {
  readonly key: string;
  readonly type: FlagType;
  readonly invalidContext: EvaluationResult;
  run(context: Context, targetingKey: string | undefined): EvaluationResult;
  typeMismatch(expected: FlagType): EvaluationResult;
}

type Serve = (context: Context, targetingKey: string | undefined) => EvaluationResult;

interface CompiledRule {
  readonly matches: ContextPredicate | null; // null: no conditions, matches everyone
  readonly serve: Serve;
}

interface CompiledDependency {
  target: CompiledFlag | null; // linked once every flag of the set is compiled
  readonly flag: string;
  readonly satisfiedBy: (value: unknown) => boolean;
}

/** Compiles `flag`, with the running experiment on it if any (its variants already checked against
 * the flag's type); call the returned `link` with the whole set before the first evaluation. */
export function compileFlag(
  flag: FlagDefinition,
  experiment: ServedExperiment | null = null,
): { compiled: CompiledFlag; link: (all: Map<string, CompiledFlag>) => void } {
  const { key } = flag;
  const compiledWith = (run: CompiledFlag['run']): CompiledFlag => ({
    key,
    type: flag.type,
    invalidContext: errorResult(
      key,
      'INVALID_CONTEXT',
      'invalid_context',
      'the evaluation context must be an object whose targetingKey, when present, is a string',
    ),
    run,
    typeMismatch: typeMismatchOf(flag),
  });
  // Definitions stored before the off switch existed have neither field: they are enabled, and
  // their off value is their value.
  if (flag.enabled === false) {
    const off = makeResult(key, flag.offValue === undefined ? flag.value : flag.offValue, 'DISABLED', 'none');
    // Nothing of a disabled flag runs, its prerequisites included: there is nothing to link.
    return { compiled: compiledWith(() => off), link: () => undefined };
  }
  const hasTargeting =
    flag.rules.length > 0 ||
    Object.keys(flag.overrides).length > 0 ||
    flag.rollout !== null ||
    flag.variants !== null ||
    flag.dependencies.length > 0;

  const disabled = makeResult(key, flag.value, 'DISABLED', 'dependency_unmet');
  const dependencies: CompiledDependency[] = flag.dependencies.map((d) => ({
    target: null,
    flag: d.flag,
    // Scalars (the common case: a bool prerequisite) compare with ===, without a deep walk.
    satisfiedBy: isScalar(d.value) || d.value === null ? (v) => v === d.value : (v) => jsonEqual(v, d.value),
  }));

  const overrides = new Map<string, EvaluationResult>();
  for (const [subject, value] of Object.entries(flag.overrides)) {
    overrides.set(subject, makeResult(key, value, 'TARGETING_MATCH', 'none'));
  }

  const rules: CompiledRule[] = flag.rules.map((rule) => compileRule(flag, rule));
  const fallthrough = compileFallthrough(flag, hasTargeting);
  const experimentStep = experiment === null ? null : compileExperimentStep(key, experiment);

  /** The flag's own targeting: what everyone outside its experiment gets. */
  const ordinary = (context: Context, targetingKey: string | undefined): EvaluationResult => {
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i];
      if (rule.matches === null || rule.matches(context)) return rule.serve(context, targetingKey);
    }
    return fallthrough(context, targetingKey);
  };

  // A switched-off flag never gets here (see above): the off switch skips overrides and the
  // experiment step alike.
  const run = (context: Context, targetingKey: string | undefined): EvaluationResult => {
    for (let i = 0; i < dependencies.length; i++) {
      const dependency = dependencies[i];
      if (!dependency.satisfiedBy((dependency.target as CompiledFlag).run(context, targetingKey).value))
        return disabled;
    }
    if (targetingKey !== undefined && overrides.size > 0) {
      const override = overrides.get(targetingKey);
      if (override !== undefined) return override;
    }
    if (experimentStep !== null) return experimentStep(context, targetingKey, ordinary);
    return ordinary(context, targetingKey);
  };

  const link = (all: Map<string, CompiledFlag>) => {
    for (const dependency of dependencies) dependency.target = all.get(dependency.flag) ?? null;
  };
  return { compiled: compiledWith(run), link };
}

function typeMismatchOf(flag: FlagDefinition): (expected: FlagType) => EvaluationResult {
  const mismatches = new Map<FlagType, EvaluationResult>();
  return (expected) => {
    let result = mismatches.get(expected);
    if (result === undefined) {
      result = typeMismatchResult(flag.key, flag.type, expected);
      mismatches.set(expected, result);
    }
    return result;
  };
}

function compileRule(flag: FlagDefinition, rule: Rule): CompiledRule {
  const predicates = rule.conditions.map(compileCondition);
  let matches: ContextPredicate | null = null;
  if (predicates.length === 1) matches = predicates[0];
  else if (predicates.length > 1) {
    matches = (context) => {
      for (let i = 0; i < predicates.length; i++) if (!predicates[i](context)) return false;
      return true;
    };
  }
  return { matches, serve: compileServe(flag, rule) };
}

function compileServe(flag: FlagDefinition, rule: Rule): Serve {
  const { key } = flag;
  const ruleId = rule.id;
  const serve = rule.serve;
  if ('rollout' in serve) {
    return compileRollout(flag, serve.rollout, 'TARGETING_MATCH', ruleId);
  }
  let result: EvaluationResult;
  if ('variant' in serve) {
    const variant = (flag.variants ?? []).find((v) => v.key === serve.variant);
    result = makeResult(key, variant?.value, 'TARGETING_MATCH', 'none', { variant: serve.variant, ruleId });
  } else {
    result = makeResult(key, serve.value, 'TARGETING_MATCH', 'none', { ruleId });
  }
  return () => result;
}

/** A rule's or the flag's own rollout: in → rollout.value, out → flag.value. */
function compileRollout(
  flag: FlagDefinition,
  rollout: Rollout,
  reason: 'TARGETING_MATCH' | 'SPLIT',
  ruleId?: string,
): Serve {
  const { key } = flag;
  const bucket = createBucketer(rollout.salt ?? key);
  const threshold = rolloutThreshold(rollout.percentage);
  const inside = makeResult(key, rollout.value, reason, 'none', { ruleId });
  const outside = makeResult(key, flag.value, reason, 'none', { ruleId });
  const noKey = makeResult(key, flag.value, 'DEFAULT', 'targeting_key_missing', { ruleId });
  return (_context, targetingKey) => {
    if (targetingKey === undefined) return noKey;
    return bucket(targetingKey) < threshold ? inside : outside;
  };
}

function compileFallthrough(flag: FlagDefinition, hasTargeting: boolean): Serve {
  const { key } = flag;
  if (flag.variants !== null) {
    const variants = flag.variants;
    const bucket = createBucketer(key);
    const bounds = variantBounds(variants.map((v) => v.weight));
    const results = variants.map((v) => makeResult(key, v.value, 'SPLIT', 'none', { variant: v.key }));
    const noKey = makeResult(key, flag.value, 'DEFAULT', 'targeting_key_missing');
    return (_context, targetingKey) => {
      if (targetingKey === undefined) return noKey;
      return results[variantIndexOf(bounds, bucket(targetingKey))];
    };
  }
  if (flag.rollout !== null) return compileRollout(flag, flag.rollout, 'SPLIT');
  const result = makeResult(key, flag.value, hasTargeting ? 'DEFAULT' : 'STATIC', 'none');
  return () => result;
}
