// The flags of `npm run bench:sdk`, written once and translated for every peer: 200 flags of the
// four types, each with a rule of three conditions (set membership, exclusion, semantic version);
// every fifth a 25 % rollout, every fifth another a 50/50 split, and five of them under a running
// experiment (100 % allocation, two variants). Ensign gets them through its API; flagd, Unleash and
// GrowthBook get the same decisions in their own models, and `checkPeer` compares every decision
// that involves no hashing (the peers hash subjects differently) before anything is timed.
import type { EvaluationContext, EvaluationResult, FlagType } from '@ensign/engine';

export const FLAG_COUNT = 200;
const PLANS = ['free', 'pro', 'beta', 'enterprise'];
const COUNTRIES = ['NO', 'SE', 'US', 'XX'];
const RULE_PLANS = ['beta', 'enterprise'];
const RULE_EXCLUDED_COUNTRIES = ['XX', 'YY'];
const RULE_MIN_VERSION = '2.3.0';

export interface BenchFlag {
  key: string;
  type: FlagType;
  value: unknown;
  ruleValue: unknown;
  /** A 25 % rollout of this value after the rule. */
  rollout: unknown | null;
  /** A 50/50 split after the rule. */
  split: [unknown, unknown] | null;
  /** A running experiment (control is the flag's value). */
  experiment: { key: string; treatment: unknown } | null;
}

function valueOf(type: FlagType, i: number): unknown {
  if (type === 'bool') return i % 2 === 0;
  if (type === 'string') return `value-${i}`;
  if (type === 'number') return i * 1.5;
  return { layout: `grid-${i}`, columns: i % 4 };
}

export function benchFlags(): BenchFlag[] {
  return Array.from({ length: FLAG_COUNT }, (_, i) => {
    const type = (['bool', 'string', 'number', 'json'] as const)[i % 4]!;
    return {
      key: `flag-${String(i).padStart(3, '0')}`,
      type,
      value: valueOf(type, i),
      ruleValue: valueOf(type, i + 1),
      rollout: i % 5 === 1 ? valueOf(type, i + 3) : null,
      split: i % 5 === 2 ? [valueOf(type, i + 4), valueOf(type, i + 5)] : null,
      // Flags 5, 45, 85, 125, 165: string flags.
      experiment: i % 40 === 5 ? { key: `exp-${i}`, treatment: `treatment-${i}` } : null,
    };
  });
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

/** The body of PATCH /api/v1/flags for a flag (the experiment is created separately). */
export function ensignFlagBody(flag: BenchFlag): Record<string, unknown> {
  return {
    key: flag.key,
    type: flag.type,
    value: flag.value,
    clientEnabled: true,
    rules: [
      {
        id: 'beta-on-new-app',
        conditions: [
          { attribute: 'plan', operator: 'in', values: RULE_PLANS },
          { attribute: 'country', operator: 'notIn', values: RULE_EXCLUDED_COUNTRIES },
          { attribute: 'appVersion', operator: 'semverGt', values: [RULE_MIN_VERSION] },
        ],
        serve: { value: flag.ruleValue },
      },
    ],
    rollout: flag.rollout === null ? null : { percentage: 25, value: flag.rollout },
    variants:
      flag.split === null
        ? null
        : [
            { key: 'a', value: flag.split[0], weight: 50 },
            { key: 'b', value: flag.split[1], weight: 50 },
          ],
  };
}

/** flagd's flag set (JSON Logic; `fractional` for rollouts, splits and experiments). */
export function flagdConfiguration(flags: BenchFlag[]): string {
  const out: Record<string, unknown> = {};
  for (const flag of flags) {
    const variants: Record<string, unknown> = { default: flag.value, rule: flag.ruleValue };
    let fallthrough: unknown = 'default';
    if (flag.rollout !== null) {
      variants.rollout = flag.rollout;
      fallthrough = {
        fractional: [
          ['rollout', 25],
          ['default', 75],
        ],
      };
    }
    if (flag.split !== null) {
      variants.a = flag.split[0];
      variants.b = flag.split[1];
      fallthrough = {
        fractional: [
          ['a', 50],
          ['b', 50],
        ],
      };
    }
    let targeting: unknown = {
      if: [
        {
          and: [
            { in: [{ var: 'plan' }, RULE_PLANS] },
            { '!': { in: [{ var: 'country' }, RULE_EXCLUDED_COUNTRIES] } },
            { sem_ver: [{ var: 'appVersion' }, '>', RULE_MIN_VERSION] },
          ],
        },
        'rule',
        fallthrough,
      ],
    };
    if (flag.experiment !== null) {
      // Everyone is allocated, as in Ensign: the experiment decides before the rules.
      variants.treatment = flag.experiment.treatment;
      variants.control = flag.value;
      targeting = {
        fractional: [
          ['control', 50],
          ['treatment', 50],
        ],
      };
    }
    out[flag.key] = { state: 'ENABLED', variants, defaultVariant: 'default', targeting };
  }
  return JSON.stringify({ flags: out });
}

type UnleashPayload = { type: 'string' | 'number' | 'json'; value: string };

function unleashPayload(type: FlagType, value: unknown): UnleashPayload {
  if (type === 'json') return { type: 'json', value: JSON.stringify(value) };
  if (type === 'number') return { type: 'number', value: String(value) };
  return { type: 'string', value: String(value) };
}

/** Unleash features: one flexibleRollout strategy per step, each with the variant it serves. */
export function unleashFeatures(flags: BenchFlag[]): unknown[] {
  return flags.map((flag) => {
    const strategy = (
      name: string,
      rollout: number,
      variants: { name: string; value: unknown; weight: number }[],
      constraints: unknown[] = [],
    ) => ({
      name: 'flexibleRollout',
      constraints,
      parameters: { rollout: String(rollout), stickiness: 'default', groupId: `${flag.key}-${name}` },
      variants: variants.map((v) => ({
        name: v.name,
        weight: v.weight,
        weightType: 'variable',
        stickiness: 'default',
        payload: unleashPayload(flag.type, v.value),
      })),
    });
    const strategies = [];
    if (flag.experiment !== null)
      strategies.push(
        strategy('experiment', 100, [
          { name: 'control', value: flag.value, weight: 500 },
          { name: 'treatment', value: flag.experiment.treatment, weight: 500 },
        ]),
      );
    strategies.push(
      strategy(
        'rule',
        100,
        [{ name: 'rule', value: flag.ruleValue, weight: 1000 }],
        [
          { contextName: 'plan', operator: 'IN', values: RULE_PLANS, inverted: false, caseInsensitive: false },
          {
            contextName: 'country',
            operator: 'NOT_IN',
            values: RULE_EXCLUDED_COUNTRIES,
            inverted: false,
            caseInsensitive: false,
          },
          {
            contextName: 'appVersion',
            operator: 'SEMVER_GT',
            value: RULE_MIN_VERSION,
            inverted: false,
            caseInsensitive: false,
          },
        ],
      ),
    );
    if (flag.rollout !== null)
      strategies.push(strategy('rollout', 25, [{ name: 'rollout', value: flag.rollout, weight: 1000 }]));
    strategies.push(
      strategy(
        'fallthrough',
        100,
        flag.split === null
          ? [{ name: 'default', value: flag.value, weight: 1000 }]
          : [
              { name: 'a', value: flag.split[0], weight: 500 },
              { name: 'b', value: flag.split[1], weight: 500 },
            ],
      ),
    );
    return { name: flag.key, enabled: true, strategies, variants: [], impressionData: false };
  });
}

/** The Unleash context of an evaluation context. */
export function unleashContext(context: EvaluationContext): { userId: string; properties: Record<string, string> } {
  const { targetingKey, ...rest } = context;
  return { userId: String(targetingKey), properties: rest as Record<string, string> };
}

/** A payload's value in the flag's type. */
export function unleashValue(type: FlagType, payload: UnleashPayload | undefined): unknown {
  if (payload === undefined) return undefined;
  if (type === 'json') return JSON.parse(payload.value);
  if (type === 'number') return Number(payload.value);
  if (type === 'bool') return payload.value === 'true';
  return payload.value;
}

/** GrowthBook features: an experiment rule, a forced rule with a condition, a partial rollout, a split. */
export function growthbookFeatures(flags: BenchFlag[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const flag of flags) {
    const rules: unknown[] = [];
    if (flag.experiment !== null)
      rules.push({
        key: flag.experiment.key,
        variations: [flag.value, flag.experiment.treatment],
        weights: [0.5, 0.5],
        coverage: 1,
        hashAttribute: 'id',
      });
    rules.push({
      condition: {
        plan: { $in: RULE_PLANS },
        country: { $nin: RULE_EXCLUDED_COUNTRIES },
        appVersion: { $vgt: RULE_MIN_VERSION },
      },
      force: flag.ruleValue,
    });
    if (flag.rollout !== null) rules.push({ force: flag.rollout, coverage: 0.25, hashAttribute: 'id' });
    if (flag.split !== null)
      rules.push({
        key: `${flag.key}-split`,
        variations: flag.split,
        weights: [0.5, 0.5],
        coverage: 1,
        hashAttribute: 'id',
      });
    out[flag.key] = { defaultValue: flag.value, rules };
  }
  return out;
}

export function growthbookAttributes(context: EvaluationContext): Record<string, unknown> {
  const { targetingKey, ...rest } = context;
  return { id: targetingKey, ...rest };
}

/** Checks a peer against Ensign where no hashing is involved: the rule's value when Ensign's rule
 * matched, the flag's value when the flag has nothing but its rule. Returns the decisions checked. */
export function checkPeer(
  name: string,
  flags: BenchFlag[],
  contexts: EvaluationContext[],
  ensign: (flag: BenchFlag, context: EvaluationContext) => EvaluationResult,
  peer: (flag: BenchFlag, context: EvaluationContext) => unknown,
): number {
  let checked = 0;
  for (const context of contexts) {
    for (const flag of flags) {
      if (flag.experiment !== null) continue;
      const ours = ensign(flag, context);
      const deterministic = ours.reason === 'TARGETING_MATCH' || (flag.rollout === null && flag.split === null);
      if (!deterministic) continue;
      const theirs = peer(flag, context);
      if (JSON.stringify(theirs) !== JSON.stringify(ours.value)) {
        throw new Error(
          `${name} differs on ${flag.key} for ${JSON.stringify(context)}: ${JSON.stringify(theirs)}, Ensign ${JSON.stringify(ours.value)} (${ours.reason})`,
        );
      }
      checked++;
    }
  }
  return checked;
}
