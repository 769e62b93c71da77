// Validation issues: what the HTTP layer turns into a 400 `details` array. Each issue points at the
// offending field with a JSON pointer and says, in words a person can act on, what is wrong.

export interface ValidationIssue {
  /** JSON pointer relative to the flag definition, like "/rules/0/conditions/1/values". */
  path: string;
  message: string;
  /** Stable machine-readable code, like "rollout_variants_exclusive". */
  code?: string;
  /** Set by set-wide checks (dependency graph, duplicate keys): the flag the path belongs to. */
  flagKey?: string;
}

export type PathSegment = string | number;

export function jsonPointer(segments: readonly PathSegment[]): string {
  let pointer = '';
  for (const segment of segments) {
    pointer += '/' + String(segment).replace(/~/g, '~0').replace(/\//g, '~1');
  }
  return pointer;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Human spelling of a path for messages: rules[0].conditions[1].values, overrides["user-42"]. */
export function fieldLabel(segments: readonly PathSegment[]): string {
  if (segments.length === 0) return 'the flag definition';
  let label = '';
  for (const segment of segments) {
    if (typeof segment === 'number') label += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) label += label === '' ? segment : `.${segment}`;
    else label += `[${JSON.stringify(segment)}]`;
  }
  return label;
}

/** Collects issues while walking a definition; messages start with the field's label. */
export class IssueCollector {
  readonly issues: ValidationIssue[] = [];

  add(segments: readonly PathSegment[], code: string, problem: string): void {
    this.issues.push({ path: jsonPointer(segments), message: `${fieldLabel(segments)} ${problem}`, code });
  }
}

/** Short name of a value's JSON type for "(got …)" hints. */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return `a ${typeof value}`;
}
