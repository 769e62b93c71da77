// What the validation tests of a flag definition share: a minimal valid flag, patched field by field.
import assert from 'node:assert/strict';
import { validateFlagDefinition } from '../src/validate.js';
import type { ValidationIssue } from '../src/validation-issue.js';

export const base = { key: 'new-checkout', type: 'bool', value: false };

export function issuesOf(patch: Record<string, unknown>, knownFlagKeys?: string[]): ValidationIssue[] {
  return validateFlagDefinition({ ...base, ...patch }, knownFlagKeys);
}

/** Asserts the definition has exactly this one issue. */
export function expectIssue(patch: Record<string, unknown>, path: string, message: string, code: string): void {
  assert.deepEqual(issuesOf(patch), [{ path, message, code }]);
}
