import type { ValidationIssue } from './validation-issue.js';

/**
 * Thrown by compileFlagSet when a stored configuration cannot be compiled. Writes are validated
 * first, so this means the stored data is corrupt or was written by something else; the caller
 * should keep serving its previous compiled set and answer with configInvalidResult for a set
 * it never managed to compile.
 */
export class ConfigInvalidError extends Error {
  readonly code = 'CONFIG_INVALID';
  readonly issues: readonly ValidationIssue[];

  constructor(issues: readonly ValidationIssue[]) {
    const shown = issues
      .slice(0, 3)
      .map((issue) => issue.message)
      .join('; ');
    const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : '';
    super(`flag configuration cannot be compiled: ${shown}${more}`);
    this.name = 'ConfigInvalidError';
    this.issues = issues;
  }
}
