// validateFlagDefinition: every rule of contract section 4 for one flag, as a list of issues the
// HTTP layer answers 400 with (empty when the flag is valid). parseFlagDefinition adds the
// defaults of optional fields. Set-wide checks (dependency graph) live in dependency-graph.ts.
import type { FlagDefinition, FlagType } from './model.js';
import { withFlagDefaults } from './model.js';
import { isJsonValue, isPlainObject, jsonByteLength } from './json-value.js';
import { describeType, IssueCollector, type PathSegment, type ValidationIssue } from './validation-issue.js';
import {
  checkKey,
  checkKnownFields,
  checkObject,
  checkRollout,
  checkTypedValue,
  isFlagType,
  isTwoDecimalNumber,
} from './validate-fields.js';
import { checkDescription, checkRules } from './validate-rules.js';

export const MAX_METADATA_BYTES = 4 * 1024;
export const MAX_OVERRIDE_KEY_LENGTH = 256;

const FLAG_FIELDS = [
  'key',
  'type',
  'value',
  'enabled',
  'offValue',
  'clientEnabled',
  'description',
  'rollout',
  'variants',
  'rules',
  'overrides',
  'dependencies',
  'metadata',
] as const;
// Read-only timestamps of the management record: tolerated so a record read from the API can be
// validated as it is, and ignored.
const RECORD_FIELDS = ['createdAt', 'updatedAt'] as const;

/**
 * Issues of one flag definition. `knownFlagKeys`, when given, are the keys of the environment's
 * flags (this one included or not): dependencies on other keys are reported as unknown. Optional
 * fields may be absent (parseFlagDefinition fills them in); `key`, `type` and `value` are required.
 */
export function validateFlagDefinition(input: unknown, knownFlagKeys?: Iterable<string>): ValidationIssue[] {
  const issues = new IssueCollector();
  if (!checkObject(issues, [], input)) return issues.issues;
  checkKnownFields(issues, [], input, [...FLAG_FIELDS, ...RECORD_FIELDS]);

  checkKey(issues, ['key'], input.key);
  let type: FlagType | null = null;
  if (isFlagType(input.type)) type = input.type;
  else {
    issues.add(
      ['type'],
      input.type === undefined ? 'required' : 'invalid_type',
      `must be one of: bool, string, number, json (got ${JSON.stringify(input.type) ?? 'nothing'})`,
    );
  }
  if (type !== null) checkTypedValue(issues, ['value'], type, input.value);
  else if (input.value === undefined) issues.add(['value'], 'required', 'is required');

  if (input.enabled !== undefined && typeof input.enabled !== 'boolean') {
    issues.add(['enabled'], 'invalid_type', `must be a boolean (got ${describeType(input.enabled)})`);
  }
  // Absent means "the value" (parseFlagDefinition fills it in), so only a given one is checked; one
  // that is the value itself (a defaulted definition) has the value's issues, reported once.
  if (type !== null && input.offValue !== undefined && !Object.is(input.offValue, input.value)) {
    checkTypedValue(issues, ['offValue'], type, input.offValue);
  }

  if (input.clientEnabled !== undefined && typeof input.clientEnabled !== 'boolean') {
    issues.add(['clientEnabled'], 'invalid_type', `must be a boolean (got ${describeType(input.clientEnabled)})`);
  }
  if (input.description !== undefined) checkDescription(issues, ['description'], input.description);

  const hasRollout = input.rollout !== undefined && input.rollout !== null;
  const hasVariants = input.variants !== undefined && input.variants !== null;
  if (hasRollout && hasVariants) {
    issues.add(
      ['variants'],
      'rollout_variants_exclusive',
      'cannot be set together with rollout: a flag splits subjects either by a percentage rollout or across variants; set the other to null',
    );
  }
  if (hasRollout) checkRollout(issues, ['rollout'], input.rollout, type);
  const variantKeys = hasVariants ? checkVariants(issues, input.variants, type) : null;

  if (input.rules !== undefined) checkRules(issues, input.rules, type, variantKeys);
  if (input.overrides !== undefined) checkOverrides(issues, input.overrides, type);
  if (input.dependencies !== undefined) {
    const known = knownFlagKeys === undefined ? undefined : new Set(knownFlagKeys);
    checkDependencies(issues, input.dependencies, typeof input.key === 'string' ? input.key : undefined, known);
  }
  if (input.metadata !== undefined) checkMetadata(issues, input.metadata);
  return issues.issues;
}

export type ParseResult = { ok: true; flag: FlagDefinition } | { ok: false; issues: ValidationIssue[] };

/** Validates and returns a complete FlagDefinition with the defaults of absent optional fields. */
export function parseFlagDefinition(input: unknown, knownFlagKeys?: Iterable<string>): ParseResult {
  const issues = validateFlagDefinition(input, knownFlagKeys);
  if (issues.length > 0) return { ok: false, issues };
  // Valid, so every present field has its FlagDefinition type; unknown record fields are dropped.
  const { createdAt: _created, updatedAt: _updated, ...fields } = input as FlagDefinition & Record<string, unknown>;
  const flag = withFlagDefaults(fields);
  return { ok: true, flag };
}

/** Returns the set of well-formed variant keys (so rules can be checked against them). */
export function checkVariants(issues: IssueCollector, variants: unknown, type: FlagType | null): Set<string> | null {
  if (!Array.isArray(variants)) {
    issues.add(['variants'], 'invalid_type', `must be null or an array of variants (got ${describeType(variants)})`);
    return null;
  }
  const keys = new Set<string>();
  if (variants.length === 0) {
    issues.add(
      ['variants'],
      'invalid_variants',
      'must hold at least one variant, or be null for a flag without variants',
    );
    return keys;
  }
  let hundredths = 0;
  let weightsValid = true;
  variants.forEach((variant, index) => {
    const path: PathSegment[] = ['variants', index];
    if (!checkObject(issues, path, variant)) {
      weightsValid = false;
      return;
    }
    checkKnownFields(issues, path, variant, ['key', 'value', 'weight']);
    if (checkKey(issues, [...path, 'key'], variant.key)) {
      const key = variant.key as string;
      if (keys.has(key))
        issues.add(
          [...path, 'key'],
          'duplicate',
          `repeats the variant key ${JSON.stringify(key)}; variant keys must be unique`,
        );
      keys.add(key);
    }
    if (type !== null) checkTypedValue(issues, [...path, 'value'], type, variant.value);
    if (isTwoDecimalNumber(variant.weight, 0, 100)) {
      hundredths += Math.round(variant.weight * 100);
    } else {
      weightsValid = false;
      const got = typeof variant.weight === 'number' ? String(variant.weight) : describeType(variant.weight);
      issues.add(
        [...path, 'weight'],
        variant.weight === undefined ? 'required' : 'out_of_range',
        `must be a weight between 0 and 100 with at most two decimals (got ${got})`,
      );
    }
  });
  // Summing integer hundredths makes 33.33 + 33.33 + 33.34 exactly 100 despite float error.
  if (weightsValid && hundredths !== 10_000) {
    issues.add(['variants'], 'weights_sum', `must have weights summing to 100 (they sum to ${hundredths / 100})`);
  }
  return keys;
}

function checkOverrides(issues: IssueCollector, overrides: unknown, type: FlagType | null): void {
  if (!isPlainObject(overrides)) {
    issues.add(
      ['overrides'],
      'invalid_type',
      `must be an object from targeting key to value (got ${describeType(overrides)})`,
    );
    return;
  }
  for (const [targetingKey, value] of Object.entries(overrides)) {
    const path: PathSegment[] = ['overrides', targetingKey];
    if (targetingKey.length === 0 || targetingKey.length > MAX_OVERRIDE_KEY_LENGTH) {
      issues.add(
        path,
        'invalid_key',
        `has a targeting key of ${targetingKey.length} characters; targeting keys have 1 to ${MAX_OVERRIDE_KEY_LENGTH}`,
      );
    }
    if (type !== null) checkTypedValue(issues, path, type, value);
  }
}

function checkDependencies(
  issues: IssueCollector,
  dependencies: unknown,
  ownKey: string | undefined,
  known: ReadonlySet<string> | undefined,
): void {
  if (!Array.isArray(dependencies)) {
    issues.add(
      ['dependencies'],
      'invalid_type',
      `must be an array of prerequisites (got ${describeType(dependencies)})`,
    );
    return;
  }
  const seen = new Set<string>();
  dependencies.forEach((dependency, index) => {
    const path: PathSegment[] = ['dependencies', index];
    if (!checkObject(issues, path, dependency)) return;
    checkKnownFields(issues, path, dependency, ['flag', 'value']);
    if (checkKey(issues, [...path, 'flag'], dependency.flag)) {
      const flag = dependency.flag as string;
      if (flag === ownKey) {
        issues.add(
          [...path, 'flag'],
          'self_dependency',
          'names the flag itself; a flag cannot be its own prerequisite',
        );
      } else if (seen.has(flag)) {
        issues.add(
          [...path, 'flag'],
          'duplicate',
          `repeats the prerequisite ${JSON.stringify(flag)}; list each prerequisite flag once`,
        );
      } else if (known !== undefined && !known.has(flag)) {
        issues.add(
          [...path, 'flag'],
          'unknown_dependency',
          `names flag ${JSON.stringify(flag)}, which does not exist in this environment`,
        );
      }
      seen.add(flag);
    }
    if (dependency.value === undefined) {
      issues.add([...path, 'value'], 'required', 'is required: the value the prerequisite flag must evaluate to');
    } else if (!isJsonValue(dependency.value)) {
      issues.add([...path, 'value'], 'invalid_type', 'must be a JSON value');
    }
  });
}

function checkMetadata(issues: IssueCollector, metadata: unknown): void {
  if (!isPlainObject(metadata)) {
    issues.add(['metadata'], 'invalid_type', `must be a JSON object (got ${describeType(metadata)})`);
  } else if (!isJsonValue(metadata)) {
    issues.add(['metadata'], 'invalid_type', 'must hold only JSON values (no NaN, Infinity or undefined)');
  } else if (jsonByteLength(metadata) > MAX_METADATA_BYTES) {
    issues.add(
      ['metadata'],
      'too_large',
      `must be at most 4 KiB (${MAX_METADATA_BYTES} bytes) when serialised as JSON (got ${jsonByteLength(metadata)} bytes)`,
    );
  }
}
