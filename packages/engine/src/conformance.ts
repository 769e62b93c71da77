// `@ensign/engine/conformance`: the types of the shared conformance vectors
// (`@ensign/engine/conformance.json`) and the comparison every runner uses. The vectors pin what an
// evaluation must answer; the engine's tests, the server's (through POST /api/v1/evaluate and
// OFREP), the SDK's and the OpenFeature providers' run the same file, so they cannot drift apart.
import type {
  ErrorCode,
  EvaluationContext,
  EvaluationResult,
  ExperimentDetail,
  FallbackClass,
  FlagDefinition,
  FlagType,
  Reason,
} from './model.js';
import type { ServedExperiment } from './experiment-model.js';
import { jsonEqual } from './json-value.js';

/** A flag of a suite: the fields it leaves out take withFlagDefaults's defaults. */
export type ConformanceFlag = Partial<FlagDefinition> & Pick<FlagDefinition, 'key' | 'type' | 'value'>;

export interface ConformanceVectors {
  description: string;
  /** Flag keys are unique across all suites, so a runner may load every suite into one environment. */
  suites: ConformanceSuite[];
  /** Configurations every evaluator must refuse, with the issues it must report. */
  invalid: InvalidConfiguration[];
}

export interface ConformanceSuite {
  name: string;
  flags: ConformanceFlag[];
  /** Served experiments (running or paused) on the suite's flags. */
  experiments?: ServedExperiment[];
  cases: ConformanceCase[];
}

export interface ConformanceCase {
  name: string;
  flag: string;
  /** Omitted: evaluate with an empty context. */
  context?: EvaluationContext;
  /** The type the caller asks for (a typed SDK call; POST /api/v1/evaluate's defaultValue). A
   * runner that cannot state one (OFREP) skips the case. */
  expectedType?: FlagType;
  expect: ConformanceExpectation;
}

/** What the evaluation must answer. A field left out must be absent from the result, except
 * `value`, which is compared only when the reason is not ERROR, and `fallbackClass`, which is
 * `none` when left out. Error messages are free text and never compared. */
export interface ConformanceExpectation {
  value?: unknown;
  variant?: string;
  reason: Reason;
  ruleId?: string;
  errorCode?: ErrorCode;
  fallbackClass?: FallbackClass;
  experiment?: ExperimentDetail;
}

export interface InvalidConfiguration {
  name: string;
  flags: unknown[];
  experiments?: unknown[];
  /** Each must be among the issues reported (others may be reported too). */
  issues: Array<{ flagKey?: string; path: string; code: string }>;
}

/** The fields of a result the vectors speak about. */
export type ComparableResult = Pick<
  EvaluationResult,
  'value' | 'variant' | 'reason' | 'ruleId' | 'errorCode' | 'fallbackClass' | 'experiment'
>;

/** How `actual` differs from `expected`, one line per field; empty when it conforms. */
export function conformanceMismatches(expected: ConformanceExpectation, actual: ComparableResult): string[] {
  const problems: string[] = [];
  const differ = (field: string, want: unknown, got: unknown) => {
    if (!jsonEqual(want ?? null, got ?? null) || (want === undefined) !== (got === undefined || got === null)) {
      problems.push(`${field}: expected ${JSON.stringify(want) ?? 'absent'}, got ${JSON.stringify(got) ?? 'absent'}`);
    }
  };
  differ('reason', expected.reason, actual.reason);
  if (expected.reason !== 'ERROR') differ('value', expected.value, actual.value);
  differ('variant', expected.variant, actual.variant);
  differ('ruleId', expected.ruleId, actual.ruleId);
  differ('errorCode', expected.errorCode, actual.errorCode);
  differ('fallbackClass', expected.fallbackClass ?? 'none', actual.fallbackClass);
  differ('experiment', expected.experiment, actual.experiment);
  return problems;
}

/** The expectation as the engine result it describes (for mapping it with toOpenFeature, say). */
export function expectedResult(flag: string, expected: ConformanceExpectation): EvaluationResult {
  return {
    key: flag,
    value: expected.reason === 'ERROR' ? undefined : expected.value,
    variant: expected.variant,
    reason: expected.reason,
    ruleId: expected.ruleId,
    errorCode: expected.errorCode,
    errorMessage: undefined,
    fallbackClass: expected.fallbackClass ?? 'none',
    experiment: expected.experiment,
  };
}
