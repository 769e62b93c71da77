// Validation of targeting rules: ids, conditions (operator and per-operator value types) and serve.
import type { FlagType } from './model.js';
import { OPERATORS } from './model.js';
import { attributePathProblem } from './context-path.js';
import { isScalar } from './json-value.js';
import { isOperator, OPERATOR_VALUE_KINDS, type OperatorValueKind } from './operators.js';
import { installedRegexEngine, REGEX_ENGINE_MISSING, targetingRegexProblem } from './targeting-regex.js';
import { isRfc3339 } from './timestamp.js';
import { parseSemver } from './semver-version.js';
import { describeType, type IssueCollector, type PathSegment } from './validation-issue.js';
import { checkKey, checkKnownFields, checkObject, checkRollout, checkTypedValue } from './validate-fields.js';

export const MAX_DESCRIPTION_LENGTH = 1024;

export function checkRules(
  issues: IssueCollector,
  rules: unknown,
  type: FlagType | null,
  variantKeys: ReadonlySet<string> | null,
): void {
  if (!Array.isArray(rules)) {
    issues.add(['rules'], 'invalid_type', `must be an array of rules (got ${describeType(rules)})`);
    return;
  }
  const seenIds = new Map<string, number>();
  rules.forEach((rule, index) => {
    const path: PathSegment[] = ['rules', index];
    if (!checkObject(issues, path, rule)) return;
    checkKnownFields(issues, path, rule, ['id', 'description', 'conditions', 'serve']);
    if (checkKey(issues, [...path, 'id'], rule.id)) {
      const id = rule.id as string;
      const first = seenIds.get(id);
      if (first !== undefined) {
        issues.add(
          [...path, 'id'],
          'duplicate',
          `repeats the id ${JSON.stringify(id)} of rules[${first}]; rule ids must be unique`,
        );
      } else {
        seenIds.set(id, index);
      }
    }
    if (rule.description !== undefined) checkDescription(issues, [...path, 'description'], rule.description);
    checkConditions(issues, [...path, 'conditions'], rule.conditions);
    checkServe(issues, [...path, 'serve'], rule.serve, type, variantKeys);
  });
}

export function checkDescription(issues: IssueCollector, path: PathSegment[], value: unknown): void {
  if (typeof value !== 'string') {
    issues.add(path, 'invalid_type', `must be a string (got ${describeType(value)})`);
  } else if (value.length > MAX_DESCRIPTION_LENGTH) {
    issues.add(path, 'too_long', `must be at most ${MAX_DESCRIPTION_LENGTH} characters (got ${value.length})`);
  }
}

export function checkConditions(issues: IssueCollector, path: PathSegment[], conditions: unknown): void {
  if (!Array.isArray(conditions)) {
    issues.add(
      path,
      conditions === undefined ? 'required' : 'invalid_type',
      `must be an array of conditions, empty to match every subject (got ${describeType(conditions)})`,
    );
    return;
  }
  conditions.forEach((condition, index) => {
    const at: PathSegment[] = [...path, index];
    if (!checkObject(issues, at, condition)) return;
    checkKnownFields(issues, at, condition, ['attribute', 'operator', 'values']);
    const attributeProblem = attributePathProblem(condition.attribute);
    if (attributeProblem !== null) issues.add([...at, 'attribute'], 'invalid_attribute', attributeProblem);
    if (!isOperator(condition.operator)) {
      issues.add(
        [...at, 'operator'],
        condition.operator === undefined ? 'required' : 'unknown_operator',
        `must be one of: ${OPERATORS.join(', ')} (got ${JSON.stringify(condition.operator) ?? 'nothing'})`,
      );
      return;
    }
    checkOperatorValues(
      issues,
      [...at, 'values'],
      condition.operator,
      OPERATOR_VALUE_KINDS[condition.operator],
      condition.values,
    );
  });
}

const ELEMENT_RULES: Record<
  Exclude<OperatorValueKind, 'none' | 'regex'>,
  { test: (v: unknown) => boolean; noun: string }
> = {
  scalar: { test: isScalar, noun: 'a string, number or boolean' },
  string: { test: (v) => typeof v === 'string', noun: 'a string' },
  number: { test: (v) => typeof v === 'number' && Number.isFinite(v), noun: 'a finite number' },
  // Rule values are strings; a context attribute may also be a whole number (semver-version.ts).
  semver: {
    test: (v) => typeof v === 'string' && parseSemver(v) !== null,
    noun: 'a semantic version like "1.4.0", "v2.0.0-beta.1" or "1.4"',
  },
  timestamp: { test: isRfc3339, noun: 'an RFC 3339 timestamp like "2026-01-31T09:00:00Z"' },
};

function checkOperatorValues(
  issues: IssueCollector,
  path: PathSegment[],
  operator: string,
  kind: OperatorValueKind,
  values: unknown,
): void {
  if (!Array.isArray(values)) {
    issues.add(
      path,
      values === undefined ? 'required' : 'invalid_type',
      `must be an array${kind === 'none' ? ' (empty for ' + operator + ')' : ''} (got ${describeType(values)})`,
    );
    return;
  }
  if (kind === 'none') {
    if (values.length > 0) issues.add(path, 'invalid_values', `must be empty: ${operator} takes no values`);
    return;
  }
  if (kind === 'regex') {
    checkRegexValues(issues, path, values);
    return;
  }
  if (values.length === 0) {
    issues.add(path, 'invalid_values', `must hold at least one value for ${operator}`);
    return;
  }
  const rule = ELEMENT_RULES[kind];
  values.forEach((value, index) => {
    if (!rule.test(value)) {
      const got = typeof value === 'string' ? JSON.stringify(value) : describeType(value);
      issues.add([...path, index], 'invalid_values', `must be ${rule.noun} for ${operator} (got ${got})`);
    }
  });
}

function checkRegexValues(issues: IssueCollector, path: PathSegment[], values: unknown[]): void {
  if (values.length !== 1 || typeof values[0] !== 'string') {
    issues.add(path, 'invalid_values', 'must hold exactly one string, the regular expression, for matches');
    return;
  }
  if (installedRegexEngine() === null) {
    issues.add(path, 'regex_engine_missing', REGEX_ENGINE_MISSING);
    return;
  }
  const problem = targetingRegexProblem(values[0]);
  if (problem !== null) issues.add([...path, 0], 'invalid_regex', problem);
}

function checkServe(
  issues: IssueCollector,
  path: PathSegment[],
  serve: unknown,
  type: FlagType | null,
  variantKeys: ReadonlySet<string> | null,
): void {
  if (!checkObject(issues, path, serve)) return;
  checkKnownFields(issues, path, serve, ['value', 'variant', 'rollout']);
  const given = ['value', 'variant', 'rollout'].filter((field) => Object.prototype.hasOwnProperty.call(serve, field));
  if (given.length !== 1) {
    issues.add(
      path,
      'invalid_serve',
      `must have exactly one of value, variant or rollout (got ${given.length === 0 ? 'none' : given.join(' and ')})`,
    );
    return;
  }
  if (given[0] === 'value') {
    if (type !== null) checkTypedValue(issues, [...path, 'value'], type, serve.value);
  } else if (given[0] === 'variant') {
    const variant = serve.variant;
    if (typeof variant !== 'string' || variant.length === 0) {
      issues.add(
        [...path, 'variant'],
        'invalid_type',
        `must be the key of one of the flag's variants (got ${describeType(variant)})`,
      );
    } else if (variantKeys === null) {
      issues.add(
        [...path, 'variant'],
        'unknown_variant',
        `names variant ${JSON.stringify(variant)} but the flag has no variants`,
      );
    } else if (!variantKeys.has(variant)) {
      issues.add(
        [...path, 'variant'],
        'unknown_variant',
        `names variant ${JSON.stringify(variant)}, which is not one of the flag's variants (${[...variantKeys].join(', ')})`,
      );
    }
  } else {
    checkRollout(issues, [...path, 'rollout'], serve.rollout, type);
  }
}
