// Condition operators, compiled once into predicates over the resolved attribute value.
//
// Semantics shared by every operator (docs/engine.md):
// - With several `values`, a positive operator holds when the attribute matches ANY of them; its
//   negation (notIn, notContains, neq) holds when it matches NONE of them.
// - Types are strict: an attribute of the wrong type (including a missing attribute) makes the
//   condition false, for negated operators too, so "neq premium" does not match a context with no
//   plan at all. Target absent attributes with notExists. Nothing here ever throws.
// - Values were checked by validation, so compile-time code trusts their types.
import type { Condition, Operator } from './model.js';
import { compileAttributePath, ownValue } from './context-path.js';
import { instantOf, parseRfc3339 } from './timestamp.js';
import { parseSemver, parseSemverCached, type SemVerInstance } from './semver-version.js';
import { compileTargetingRegex } from './targeting-regex.js';

/** What the `values` of each operator must hold; validation and documentation follow this. */
export type OperatorValueKind = 'scalar' | 'string' | 'number' | 'semver' | 'timestamp' | 'regex' | 'none';

export const OPERATOR_VALUE_KINDS: Readonly<Record<Operator, OperatorValueKind>> = {
  in: 'scalar',
  notIn: 'scalar',
  eq: 'scalar',
  neq: 'scalar',
  contains: 'string',
  notContains: 'string',
  startsWith: 'string',
  endsWith: 'string',
  matches: 'regex',
  lt: 'number',
  lte: 'number',
  gt: 'number',
  gte: 'number',
  semverEq: 'semver',
  semverLt: 'semver',
  semverGt: 'semver',
  before: 'timestamp',
  after: 'timestamp',
  exists: 'none',
  notExists: 'none',
};

export function isOperator(value: unknown): value is Operator {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(OPERATOR_VALUE_KINDS, value);
}

export type ValuePredicate = (attribute: unknown) => boolean;
export type ContextPredicate = (context: Readonly<Record<string, unknown>>) => boolean;

export function compileCondition(condition: Condition): ContextPredicate {
  const test = compileOperator(condition.operator, condition.values);
  const attribute = condition.attribute;
  // A top-level attribute (nearly all of them) is read here rather than through an accessor: one
  // call fewer per condition, at a call site that sees a different accessor for every condition.
  if (!attribute.includes('.')) return (context) => test(ownValue(context, attribute));
  const read = compileAttributePath(attribute);
  return (context) => test(read(context));
}

export function compileOperator(operator: Operator, values: readonly unknown[]): ValuePredicate {
  switch (operator) {
    case 'in':
    case 'eq':
      return scalarMembership(values, true);
    case 'notIn':
    case 'neq':
      return scalarMembership(values, false);
    case 'contains':
      return containment(values as string[], true);
    case 'notContains':
      return containment(values as string[], false);
    case 'startsWith':
      return anyString(values as string[], (v, prefix) => v.startsWith(prefix));
    case 'endsWith':
      return anyString(values as string[], (v, suffix) => v.endsWith(suffix));
    case 'matches': {
      const regex = compileTargetingRegex(values[0] as string);
      return (v) => typeof v === 'string' && regex.test(v);
    }
    case 'lt': {
      const bound = Math.max(...(values as number[]));
      return (v) => typeof v === 'number' && v < bound;
    }
    case 'lte': {
      const bound = Math.max(...(values as number[]));
      return (v) => typeof v === 'number' && v <= bound;
    }
    case 'gt': {
      const bound = Math.min(...(values as number[]));
      return (v) => typeof v === 'number' && v > bound;
    }
    case 'gte': {
      const bound = Math.min(...(values as number[]));
      return (v) => typeof v === 'number' && v >= bound;
    }
    case 'semverEq':
    case 'semverLt':
    case 'semverGt':
      return semverComparison(operator, values);
    case 'before': {
      // "before any of the values" is "before the latest of them".
      const bound = Math.max(...values.map((t) => parseRfc3339(t as string)));
      return (v) => instantOf(v) < bound;
    }
    case 'after': {
      const bound = Math.min(...values.map((t) => parseRfc3339(t as string)));
      return (v) => instantOf(v) > bound;
    }
    case 'exists':
      // null counts as absent: JSON clients send null to clear an attribute.
      return (v) => v !== undefined && v !== null;
    case 'notExists':
      return (v) => v === undefined || v === null;
  }
}

function isScalarAttribute(v: unknown): boolean {
  const kind = typeof v;
  return kind === 'string' || kind === 'number' || kind === 'boolean';
}

function scalarMembership(values: readonly unknown[], wanted: boolean): ValuePredicate {
  // Set membership is strict (SameValueZero): the string "1" is not the number 1.
  if (values.length === 1) {
    const only = values[0];
    return (v) => isScalarAttribute(v) && (v === only) === wanted;
  }
  if (values.length <= SMALL_SET) {
    // A few values (the usual list of plans or countries): comparing them in turn costs less than
    // hashing the attribute for a Set lookup. === agrees with Set.has's SameValueZero here: values
    // are JSON, so never NaN, and -0 cannot be told from 0 by either.
    const list = [...values];
    const count = list.length;
    return (v) => {
      if (!isScalarAttribute(v)) return false;
      for (let i = 0; i < count; i++) if (list[i] === v) return wanted;
      return !wanted;
    };
  }
  const set = new Set(values);
  return (v) => isScalarAttribute(v) && set.has(v) === wanted;
}

/** Up to this many values, membership is a linear scan (measured: bench/RESULTS.md, issue 24). */
const SMALL_SET = 8;

/** A string attribute for which `test` holds with at least one of `needles`. */
function anyString(needles: readonly string[], test: (v: string, needle: string) => boolean): ValuePredicate {
  if (needles.length === 1) {
    const only = needles[0];
    return (v) => typeof v === 'string' && test(v, only);
  }
  return (v) => {
    if (typeof v !== 'string') return false;
    for (let i = 0; i < needles.length; i++) if (test(v, needles[i])) return true;
    return false;
  };
}

function containment(needles: readonly string[], wanted: boolean): ValuePredicate {
  const set = new Set(needles);
  return (v) => {
    if (typeof v === 'string') {
      let found = false;
      for (let i = 0; i < needles.length && !found; i++) found = v.includes(needles[i]);
      return found === wanted;
    }
    if (Array.isArray(v)) {
      // Arrays: membership of an element, not substring of one.
      let found = false;
      for (let i = 0; i < v.length && !found; i++) found = set.has(v[i]);
      return found === wanted;
    }
    return false;
  };
}

function semverComparison(operator: 'semverEq' | 'semverLt' | 'semverGt', values: readonly unknown[]): ValuePredicate {
  const versions = values.map((s) => parseSemver(s) as SemVerInstance);
  if (operator === 'semverEq') {
    return (v) => {
      const version = parseSemverCached(v);
      return version !== null && versions.some((w) => version.compare(w) === 0);
    };
  }
  const sorted = [...versions].sort((a, b) => a.compare(b));
  if (operator === 'semverLt') {
    const bound = sorted[sorted.length - 1];
    return (v) => {
      const version = parseSemverCached(v);
      return version !== null && version.compare(bound) < 0;
    };
  }
  const bound = sorted[0];
  return (v) => {
    const version = parseSemverCached(v);
    return version !== null && version.compare(bound) > 0;
  };
}
