// The flagd testbed's gherkin scenarios (open-feature/flagd-testbed, gherkin/evaluation.feature,
// targeting.feature, metadata.feature and errors.feature), translated to Ensign flags where
// Ensign's model can state them, for both OpenFeature providers' tests. The feature files are not
// in any npm package (neither @openfeature/flagd-core nor @openfeature/flagd-provider ships them)
// and the testbed repository cannot be fetched where the tests run, so the scenarios are written
// out here: each row names its feature and scenario, the flag is Ensign's statement of the
// testbed's flag, and the expectation is the scenario's. What Ensign cannot state is listed in
// NOT_TRANSLATED with the reason, so a reader sees what is covered and what is not.
import type { CoreFlag, Operator, Rule } from '@ensign/engine';
import { document, flag } from './fixtures.js';

export type ScenarioType = 'Boolean' | 'String' | 'Integer' | 'Float';

export interface FlagdScenario {
  feature: string;
  scenario: string;
  flag: string;
  type: ScenarioType;
  defaultValue: boolean | string | number;
  context?: Record<string, unknown>;
  expect: { value: unknown; reason?: string; errorCode?: string; metadata?: Record<string, unknown> };
}

const rule = (id: string, conditions: [string, Operator, unknown[]][], value: unknown): Rule => ({
  id,
  conditions: conditions.map(([attribute, operator, values]) => ({ attribute, operator, values })),
  serve: { value },
});

/** The testbed's flags as Ensign states them (key → core/v1 flag). */
export const FLAGD_FLAGS: Record<string, CoreFlag> = {
  'boolean-flag': flag('bool', true),
  'string-flag': flag('string', 'hi'),
  'integer-flag': flag('number', 10),
  'float-flag': flag('number', 0.5),
  'boolean-zero-flag': flag('bool', false),
  'string-zero-flag': flag('string', ''),
  'integer-zero-flag': flag('number', 0),
  'float-zero-flag': flag('number', 0.0),
  // Targeted to the zero value for one e-mail domain; everyone else gets the zero value as default.
  ...Object.fromEntries(
    (
      [
        ['boolean', 'bool', false],
        ['string', 'string', ''],
        ['integer', 'number', 0],
        ['float', 'number', 0.0],
      ] as const
    ).map(([name, type, zero]) => [
      `${name}-targeted-zero-flag`,
      flag(type, zero, { rules: [rule('macrosoft', [['email', 'endsWith', ['@macrosoft.com']]], zero)] }),
    ]),
  ),
  // flagd shares one evaluator through $ref; Ensign writes the rule on each flag.
  'some-email-targeted-flag': flag('string', 'bye', {
    rules: [rule('macrosoft', [['email', 'endsWith', ['@macrosoft.com']]], 'hi')],
  }),
  'some-other-email-targeted-flag': flag('string', 'no', {
    rules: [rule('macrosoft', [['email', 'endsWith', ['@macrosoft.com']]], 'yes')],
  }),
  'starts-ends-flag': flag('string', 'none', {
    rules: [
      rule('prefix', [['id', 'startsWith', ['abc']]], 'prefix'),
      rule('postfix', [['id', 'endsWith', ['xyz']]], 'postfix'),
    ],
  }),
  'equal-greater-lesser-version-flag': flag('string', 'none', {
    rules: [
      rule('equal', [['version', 'semverEq', ['2.0.0']]], 'equal'),
      rule('greater', [['version', 'semverGt', ['2.0.0']]], 'greater'),
      rule('lesser', [['version', 'semverLt', ['2.0.0']]], 'lesser'),
    ],
  }),
  // flagd's "~3.0.0" and "^3.0.0" as the ranges they mean: [3.0.0, 3.1.0) and [3.0.0, 4.0.0).
  'major-minor-version-flag': flag('string', 'none', {
    rules: [
      rule('tilde-exact', [['version', 'semverEq', ['3.0.0']]], 'minor'),
      rule(
        'tilde',
        [
          ['version', 'semverGt', ['3.0.0']],
          ['version', 'semverLt', ['3.1.0']],
        ],
        'minor',
      ),
      rule(
        'caret',
        [
          ['version', 'semverGt', ['3.0.0']],
          ['version', 'semverLt', ['4.0.0']],
        ],
        'major',
      ),
    ],
  }),
  'targeting-key-flag': flag('string', 'miss', { overrides: { '5c3d8535-f81a-4478-a6d3-afaa4d51199e': 'hit' } }),
  'semver-invalid-version-flag': flag('string', 'fallback', {
    rules: [rule('v1', [['version', 'semverEq', ['1.0.0']]], 'match')],
  }),
  'metadata-flag': flag('bool', true, { metadata: { string: 'a', integer: 1, float: 1.2, boolean: true } }),
};

export function flagdDocument() {
  return document({ flags: FLAGD_FLAGS });
}

const typed = (type: ScenarioType, text: string): boolean | string | number =>
  type === 'Boolean' ? text === 'true' : type === 'String' ? text : Number(text);

function outline(
  feature: string,
  scenario: string,
  rows: [flag: string, type: ScenarioType, defaultValue: string, value: string][],
  extra: Partial<FlagdScenario> & { reason?: string } = {},
): FlagdScenario[] {
  return rows.map(([key, type, defaultValue, value]) => ({
    feature,
    scenario,
    flag: key,
    type,
    defaultValue: typed(type, defaultValue),
    ...(extra.context ? { context: extra.context } : {}),
    expect: { value: typed(type, value), ...(extra.reason ? { reason: extra.reason } : {}) },
  }));
}

function strings(
  feature: string,
  scenario: string,
  key: string,
  attribute: string,
  rows: [string, string][],
): FlagdScenario[] {
  return rows.map(([input, value]) => ({
    feature,
    scenario,
    flag: key,
    type: 'String' as const,
    defaultValue: 'fallback',
    context: { [attribute]: input },
    expect: { value },
  }));
}

export const FLAGD_SCENARIOS: FlagdScenario[] = [
  ...outline('evaluation.feature', 'Resolve values', [
    ['boolean-flag', 'Boolean', 'false', 'true'],
    ['string-flag', 'String', 'bye', 'hi'],
    ['integer-flag', 'Integer', '1', '10'],
    ['float-flag', 'Float', '0.1', '0.5'],
  ]),
  ...outline(
    'evaluation.feature',
    'Resolves zero value',
    [
      ['boolean-zero-flag', 'Boolean', 'true', 'false'],
      ['string-zero-flag', 'String', 'hi', ''],
      ['integer-zero-flag', 'Integer', '1', '0'],
      ['float-zero-flag', 'Float', '0.1', '0.0'],
    ],
    { reason: 'STATIC' },
  ),
  ...outline(
    'evaluation.feature',
    'Resolves zero value with targeting',
    [
      ['boolean-targeted-zero-flag', 'Boolean', 'true', 'false'],
      ['string-targeted-zero-flag', 'String', 'hi', ''],
      ['integer-targeted-zero-flag', 'Integer', '1', '0'],
      ['float-targeted-zero-flag', 'Float', '0.1', '0.0'],
    ],
    { reason: 'TARGETING_MATCH', context: { email: 'ballmer@macrosoft.com' } },
  ),
  ...outline(
    'evaluation.feature',
    'Resolves zero value with targeting using default',
    [
      ['boolean-targeted-zero-flag', 'Boolean', 'true', 'false'],
      ['string-targeted-zero-flag', 'String', 'hi', ''],
      ['integer-targeted-zero-flag', 'Integer', '1', '0'],
      ['float-targeted-zero-flag', 'Float', '0.1', '0.0'],
    ],
    { reason: 'DEFAULT', context: { email: 'ballmer@none.com' } },
  ),
  ...strings('targeting.feature', 'Evaluator reuse', 'some-email-targeted-flag', 'email', [
    ['ballmer@macrosoft.com', 'hi'],
  ]),
  ...strings('targeting.feature', 'Evaluator reuse', 'some-other-email-targeted-flag', 'email', [
    ['ballmer@macrosoft.com', 'yes'],
  ]),
  ...strings('targeting.feature', 'Substring operators', 'starts-ends-flag', 'id', [
    ['abcdef', 'prefix'],
    ['uvwxyz', 'postfix'],
    ['abcxyz', 'prefix'],
    ['lmnopq', 'none'],
    ['3', 'none'],
  ]),
  ...strings(
    'targeting.feature',
    'Semantic version operator numeric comparison',
    'equal-greater-lesser-version-flag',
    'version',
    [
      ['2.0.0', 'equal'],
      ['2.1.0', 'greater'],
      ['1.9.0', 'lesser'],
      ['2.0.0-alpha', 'lesser'],
      ['2.0.0.0', 'none'],
    ],
  ),
  ...strings(
    'targeting.feature',
    'Semantic version operator semantic comparison',
    'major-minor-version-flag',
    'version',
    [
      ['3.0.1', 'minor'],
      ['3.1.0', 'major'],
      ['4.0.0', 'none'],
    ],
  ),
  ...[
    ['5c3d8535-f81a-4478-a6d3-afaa4d51199e', 'hit', 'TARGETING_MATCH'],
    ['f20bd32d-703b-48b6-bc8e-79d53c85134a', 'miss', 'DEFAULT'],
  ].map(([key, value, reason]) => ({
    feature: 'targeting.feature',
    scenario: 'Targeting by targeting key',
    flag: 'targeting-key-flag',
    type: 'String' as const,
    defaultValue: 'fallback',
    context: { targetingKey: key },
    expect: { value, reason },
  })),
  {
    feature: 'targeting.feature',
    scenario: 'Custom operator errors return null and fall back to default variant',
    flag: 'semver-invalid-version-flag',
    type: 'String',
    defaultValue: 'wrong',
    context: { version: 'not-a-version' },
    expect: { value: 'fallback', reason: 'DEFAULT' },
  },
  {
    feature: 'metadata.feature',
    scenario: 'Returns metadata',
    flag: 'metadata-flag',
    type: 'Boolean',
    defaultValue: true,
    expect: { value: true, metadata: { string: 'a', integer: 1, float: 1.2, boolean: true } },
  },
  {
    feature: 'metadata.feature',
    scenario: 'Returns no metadata',
    flag: 'boolean-flag',
    type: 'Boolean',
    defaultValue: true,
    expect: { value: true, metadata: {} },
  },
  ...(
    [
      ['string-flag', 'Boolean', 'false'],
      ['string-flag', 'Integer', '1'],
      ['string-flag', 'Float', '0.1'],
      ['boolean-flag', 'String', 'fallback'],
      ['boolean-flag', 'Integer', '1'],
      ['boolean-flag', 'Float', '0.1'],
      ['integer-flag', 'Boolean', 'false'],
      ['integer-flag', 'String', 'fallback'],
      ['float-flag', 'Boolean', 'false'],
      ['float-flag', 'String', 'fallback'],
    ] as const
  ).map(([key, type, defaultValue]) => ({
    feature: 'errors.feature',
    scenario: 'Requesting the wrong type returns the default',
    flag: key,
    type,
    defaultValue: typed(type, defaultValue),
    expect: { value: typed(type, defaultValue), reason: 'ERROR', errorCode: 'TYPE_MISMATCH' },
  })),
];

/** Scenarios of those features that Ensign's model cannot state, and why. */
export const NOT_TRANSLATED: { feature: string; scenario: string; why: string }[] = [
  {
    feature: 'evaluation.feature',
    scenario: 'Resolves flag with no defaultValue correctly',
    why: 'every Ensign flag has a value; a flag without one is refused when written',
  },
  {
    feature: 'targeting.feature',
    scenario: 'Evaluator $ref resolves regardless of whitespace / Ref to nonexistent evaluator',
    why: 'no shared evaluators ($ref) in Ensign: rules are written on each flag',
  },
  {
    feature: 'targeting.feature',
    scenario: 'Fractional operator (all variants)',
    why: "flagd's bucketing (its own seed and formula) is not Ensign's; Ensign's is pinned by the engine's golden bucketing vectors",
  },
  {
    feature: 'targeting.feature',
    scenario: 'sem_ver v-prefix, partial version, build metadata',
    why: "flagd coerces loose versions; Ensign's semantic versions are strict (docs/engine.md)",
  },
  {
    feature: 'targeting.feature',
    scenario: 'Time-based operations',
    why: 'no current time in Ensign targeting: evaluation is deterministic; before/after compare with fixed timestamps',
  },
  {
    feature: 'targeting.feature',
    scenario: 'Errors and edge cases; invalid operator',
    why: 'malformed targeting is refused when written (config_invalid), never served',
  },
  { feature: 'metadata.feature', scenario: 'Flag set metadata', why: 'Ensign has no flag-set metadata' },
  {
    feature: 'errors.feature',
    scenario: 'wrong-flag requested as Boolean',
    why: 'a flag whose variants disagree with its type is refused when written',
  },
];
