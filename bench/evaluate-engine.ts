// The in-process half of `npm run bench:evaluate`: Ensign's engine and @openfeature/flagd-core
// evaluating the same 200 flags (each with a rule of three conditions; half of them split subjects
// across variants) for the same contexts, measured in the same run. The flagd definitions are
// written from Ensign's, and their answers are compared before anything is timed.
import { FlagdCore } from '@openfeature/flagd-core';
import type { EvaluationContext as FlagdContext, JsonValue } from '@openfeature/core';
import {
  compileFlagSet,
  withFlagDefaults,
  type EvaluationContext,
  type FlagDefinition,
  type FlagType,
} from '@ensign/engine';

export const FLAG_COUNT = 200;
const PLANS = ['free', 'pro', 'beta', 'enterprise'];
const COUNTRIES = ['NO', 'SE', 'US', 'XX'];

function valueOf(type: FlagType, i: number): unknown {
  if (type === 'bool') return i % 2 === 0;
  if (type === 'string') return `value-${i}`;
  if (type === 'number') return i * 1.5;
  return { layout: `grid-${i}`, columns: i % 4 };
}

/** 200 flags: a rule of three conditions (set membership, exclusion, semantic version) on each;
 * every second flag splits the other subjects across two or three variants. */
export function benchFlags(): FlagDefinition[] {
  return Array.from({ length: FLAG_COUNT }, (_, i) => {
    const type = (['bool', 'string', 'number', 'json'] as const)[i % 4]!;
    const split = i % 2 === 1;
    const variantCount = i % 4 === 1 ? 3 : 2;
    const weights = variantCount === 3 ? [33.33, 33.33, 33.34] : [50, 50];
    return withFlagDefaults({
      key: `flag-${String(i).padStart(3, '0')}`,
      type,
      value: valueOf(type, i),
      rules: [
        {
          id: 'beta-on-new-app',
          conditions: [
            { attribute: 'plan', operator: 'in', values: ['beta', 'enterprise'] },
            { attribute: 'country', operator: 'notIn', values: ['XX', 'YY'] },
            { attribute: 'appVersion', operator: 'semverGt', values: ['2.3.0'] },
          ],
          serve: { value: valueOf(type, i + 1) },
        },
      ],
      variants: split ? weights.map((weight, v) => ({ key: `v${v}`, value: valueOf(type, i + 2 + v), weight })) : null,
    });
  });
}

/** The same flags as a flagd flag set: JSON Logic targeting, `fractional` for the splits. */
export function flagdConfiguration(flags: FlagDefinition[]): string {
  const out: Record<string, unknown> = {};
  for (const flag of flags) {
    const rule = flag.rules[0]!;
    const variants: Record<string, unknown> = {
      default: flag.value,
      rule: 'value' in rule.serve ? rule.serve.value : null,
    };
    for (const v of flag.variants ?? []) variants[v.key] = v.value;
    const fallthrough = flag.variants
      ? {
          fractional: [
            { cat: [{ var: '$flagd.flagKey' }, '/', { var: 'targetingKey' }] },
            ...flag.variants.map((v) => [v.key, Math.round(v.weight * 100)]),
          ],
        } // flagd weighs in integers
      : 'default';
    out[flag.key] = {
      state: 'ENABLED',
      variants,
      defaultVariant: 'default',
      targeting: {
        if: [
          {
            and: [
              { in: [{ var: 'plan' }, ['beta', 'enterprise']] },
              { '!': { in: [{ var: 'country' }, ['XX', 'YY']] } },
              { sem_ver: [{ var: 'appVersion' }, '>', '2.3.0'] },
            ],
          },
          'rule',
          fallthrough,
        ],
      },
    };
  }
  return JSON.stringify({ flags: out });
}

export function benchContexts(count: number): EvaluationContext[] {
  return Array.from({ length: count }, (_, i) => ({
    targetingKey: `user-${i}`,
    plan: PLANS[i % PLANS.length],
    country: COUNTRIES[(i >> 2) % COUNTRIES.length],
    appVersion: `${(i % 3) + 1}.${i % 7}.${i % 5}`,
    email: `user-${i}@example.com`,
  }));
}

type Resolve = (context: FlagdContext) => unknown;

function flagdResolvers(core: FlagdCore, flags: FlagDefinition[]): Resolve[] {
  const silent = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined };
  return flags.map((flag) => {
    const key = flag.key;
    if (flag.type === 'bool') return (c) => core.resolveBooleanEvaluation(key, false, c, silent).value;
    if (flag.type === 'string') return (c) => core.resolveStringEvaluation(key, '', c, silent).value;
    if (flag.type === 'number') return (c) => core.resolveNumberEvaluation(key, 0, c, silent).value;
    return (c) => core.resolveObjectEvaluation(key, {} as JsonValue, c, silent).value;
  });
}

/** Evaluations per second of `evaluateOne` over every (context, flag) pair, for about `seconds`. */
function rate(
  contexts: number,
  flags: number,
  seconds: number,
  evaluateOne: (c: number, f: number) => unknown,
): number {
  let sink = 0;
  const round = () => {
    for (let c = 0; c < contexts; c++) for (let f = 0; f < flags; f++) if (evaluateOne(c, f) !== undefined) sink++;
  };
  round(); // warm-up: compile, inline caches, JIT
  let evaluations = 0;
  const started = process.hrtime.bigint();
  const budget = BigInt(Math.round(seconds * 1e9));
  while (process.hrtime.bigint() - started < budget) {
    round();
    evaluations += contexts * flags;
  }
  if (sink === 0) throw new Error('nothing was evaluated');
  return evaluations / (Number(process.hrtime.bigint() - started) / 1e9);
}

export interface EngineComparison {
  ensign: number;
  flagd: number;
  checked: number;
}

export function compareEngines(seconds: number): EngineComparison {
  const flags = benchFlags();
  const contexts = benchContexts(500);
  const ensign = compileFlagSet(flags);
  const core = new FlagdCore();
  core.setConfigurations(flagdConfiguration(flags));
  const resolvers = flagdResolvers(core, flags);
  const keys = flags.map((f) => f.key);

  // Equivalence: every rule decision agrees, and split answers are one of the flag's variants.
  let checked = 0;
  for (const context of contexts) {
    flags.forEach((flag, f) => {
      const ours = ensign.evaluate(flag.key, context).value;
      const theirs = resolvers[f]!(context as FlagdContext);
      const split = ensign.evaluate(flag.key, context).reason === 'SPLIT';
      const same = JSON.stringify(ours) === JSON.stringify(theirs);
      const bothVariants =
        split && (flag.variants ?? []).some((v) => JSON.stringify(v.value) === JSON.stringify(theirs));
      if (!same && !bothVariants)
        throw new Error(
          `${flag.key} differs for ${JSON.stringify(context)}: ${JSON.stringify(ours)} vs ${JSON.stringify(theirs)}`,
        );
      checked++;
    });
  }

  const flagdContexts = contexts as FlagdContext[];
  return {
    ensign: rate(contexts.length, keys.length, seconds, (c, f) => ensign.evaluate(keys[f]!, contexts[c]).value),
    flagd: rate(contexts.length, keys.length, seconds, (c, f) => resolvers[f]!(flagdContexts[c]!)),
    checked,
  };
}
