// Checks of an experiment's served fields against its flag: variants (2 to 10, of the flag's type,
// unique keys, weights summing to 100) and targeting conditions (as in flag rules). Issues point at
// request paths (/variants/1/value, /targeting/0/operator) like flag validation does.
import type { FlagType } from './model.js';
import { IssueCollector, type ValidationIssue } from './validation-issue.js';
import { checkVariants } from './validate.js';
import { checkConditions } from './validate-rules.js';

export const MIN_EXPERIMENT_VARIANTS = 2;
export const MAX_EXPERIMENT_VARIANTS = 10;

export function validateExperimentFields(input: {
  type: FlagType;
  variants?: unknown;
  targeting?: unknown;
}): ValidationIssue[] {
  const issues = new IssueCollector();
  if (input.variants !== undefined) {
    const count = Array.isArray(input.variants) ? input.variants.length : 0;
    if (Array.isArray(input.variants) && (count < MIN_EXPERIMENT_VARIANTS || count > MAX_EXPERIMENT_VARIANTS)) {
      issues.add(
        ['variants'],
        'invalid_variants',
        `must hold ${MIN_EXPERIMENT_VARIANTS} to ${MAX_EXPERIMENT_VARIANTS} variants, the first being the control (got ${count})`,
      );
    }
    checkVariants(issues, input.variants, input.type);
  }
  if (input.targeting !== undefined) checkConditions(issues, ['targeting'], input.targeting);
  return issues.issues;
}
