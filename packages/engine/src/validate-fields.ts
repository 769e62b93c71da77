// Field-level checks shared by the flag, rule and variant validators.
import type { FlagType } from './model.js';
import { FLAG_TYPES } from './model.js';
import { isJsonValue, isPlainObject, jsonByteLength, utf8ByteLength } from './json-value.js';
import { describeType, type IssueCollector, type PathSegment } from './validation-issue.js';

export const MAX_KEY_LENGTH = 128;
export const MAX_VALUE_BYTES = 32 * 1024;
export const MAX_SALT_LENGTH = 256;

// Flag keys, variant keys and rule ids share one charset. Rule ids cannot start with "$", which
// keeps the ids "$rollout" and "$variants" of the legacy document free.
const KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;

export function isFlagType(value: unknown): value is FlagType {
  return typeof value === 'string' && (FLAG_TYPES as readonly string[]).includes(value);
}

/** Checks a key-like string (flag key, variant key, rule id); returns whether it is valid. */
export function checkKey(issues: IssueCollector, path: PathSegment[], value: unknown): boolean {
  if (typeof value !== 'string' || value.length === 0) {
    issues.add(
      path,
      value === undefined ? 'required' : 'invalid_key',
      `must be a non-empty string (got ${describeType(value)})`,
    );
    return false;
  }
  if (value.length > MAX_KEY_LENGTH) {
    issues.add(path, 'invalid_key', `must be at most ${MAX_KEY_LENGTH} characters (got ${value.length})`);
    return false;
  }
  if (!KEY_PATTERN.test(value)) {
    issues.add(
      path,
      'invalid_key',
      `must use only letters, digits and . _ - : and start with a letter or digit (got ${JSON.stringify(value)})`,
    );
    return false;
  }
  return true;
}

/** Checks that `value` has the flag's type; `type` must already be valid. */
export function checkTypedValue(issues: IssueCollector, path: PathSegment[], type: FlagType, value: unknown): void {
  if (value === undefined) {
    issues.add(path, 'required', `is required (a ${typeNoun(type)} for a flag of type ${type})`);
    return;
  }
  switch (type) {
    case 'bool':
      if (typeof value !== 'boolean') mismatch(issues, path, type, value);
      return;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) mismatch(issues, path, type, value);
      return;
    case 'string':
      if (typeof value !== 'string') mismatch(issues, path, type, value);
      else if (utf8ByteLength(value) > MAX_VALUE_BYTES) {
        issues.add(path, 'too_large', `must be at most 32 KiB (${MAX_VALUE_BYTES} bytes) of UTF-8`);
      }
      return;
    case 'json':
      if (!isJsonValue(value)) {
        issues.add(
          path,
          'type_mismatch',
          'must be a JSON value (no NaN, Infinity, undefined or nesting beyond 64 levels)',
        );
      } else if (jsonByteLength(value) > MAX_VALUE_BYTES) {
        issues.add(path, 'too_large', `must be at most 32 KiB (${MAX_VALUE_BYTES} bytes) when serialised as JSON`);
      }
      return;
  }
}

function typeNoun(type: FlagType): string {
  return { bool: 'boolean', string: 'string', number: 'finite number', json: 'JSON value' }[type];
}

function mismatch(issues: IssueCollector, path: PathSegment[], type: FlagType, value: unknown): void {
  issues.add(
    path,
    'type_mismatch',
    `must be a ${typeNoun(type)} for a flag of type ${type} (got ${describeType(value)})`,
  );
}

/** True when `n` is a finite number in [min, max] with at most two decimals. */
export function isTwoDecimalNumber(n: unknown, min: number, max: number): n is number {
  if (typeof n !== 'number' || !Number.isFinite(n) || n < min || n > max) return false;
  // n × 100 of a two-decimal number is an integer up to float error (12.34 × 100 = 1234.0000000000002).
  return Math.abs(n * 100 - Math.round(n * 100)) < 1e-6;
}

export function checkPercentage(issues: IssueCollector, path: PathSegment[], value: unknown): void {
  if (!isTwoDecimalNumber(value, 0, 100)) {
    const got = typeof value === 'number' ? String(value) : describeType(value);
    issues.add(
      path,
      value === undefined ? 'required' : 'out_of_range',
      `must be a number between 0 and 100 with at most two decimals (got ${got})`,
    );
  }
}

/** Reports fields of `object` outside `allowed`; unknown fields are rejected as everywhere in the API. */
export function checkKnownFields(
  issues: IssueCollector,
  path: PathSegment[],
  object: Record<string, unknown>,
  allowed: readonly string[],
): void {
  for (const field of Object.keys(object)) {
    if (!allowed.includes(field)) {
      issues.add([...path, field], 'unknown_field', `is not a known field (expected one of: ${allowed.join(', ')})`);
    }
  }
}

/** Checks `value` is a plain object; reports and returns false otherwise. */
export function checkObject(
  issues: IssueCollector,
  path: PathSegment[],
  value: unknown,
): value is Record<string, unknown> {
  if (isPlainObject(value)) return true;
  issues.add(path, value === undefined ? 'required' : 'invalid_type', `must be an object (got ${describeType(value)})`);
  return false;
}

/** A rollout object, at flag level or in a rule's serve; `type` is null when the flag type is invalid. */
export function checkRollout(
  issues: IssueCollector,
  path: PathSegment[],
  rollout: unknown,
  type: FlagType | null,
): void {
  if (!checkObject(issues, path, rollout)) return;
  checkKnownFields(issues, path, rollout, ['percentage', 'value', 'salt']);
  checkPercentage(issues, [...path, 'percentage'], rollout.percentage);
  if (type !== null) checkTypedValue(issues, [...path, 'value'], type, rollout.value);
  if (rollout.salt !== undefined) {
    const salt = rollout.salt;
    if (typeof salt !== 'string' || salt.length === 0 || salt.length > MAX_SALT_LENGTH) {
      const got = typeof salt === 'string' ? `${salt.length} characters` : describeType(salt);
      issues.add(
        [...path, 'salt'],
        'invalid_salt',
        `must be a string of 1 to ${MAX_SALT_LENGTH} characters when given (got ${got})`,
      );
    }
  }
}
