// Set-wide checks that one flag cannot do alone: duplicate keys, prerequisites naming flags that do
// not exist or that can never produce the required value, cycles, and chains too deep to evaluate
// cheaply (each level is evaluated on every evaluation of the dependent flag).
import type { FlagDefinition } from './model.js';
import { isFlagType, checkTypedValue } from './validate-fields.js';
import { IssueCollector, jsonPointer, type ValidationIssue } from './validation-issue.js';
import { validateFlagDefinition } from './validate.js';

export const MAX_DEPENDENCY_DEPTH = 32;

type GraphFlag = Pick<FlagDefinition, 'key' | 'type' | 'dependencies'>;

/** Issues of the prerequisite graph; each carries `flagKey` and a path inside that flag. */
export function validateDependencyGraph(flags: readonly GraphFlag[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const byKey = new Map<string, GraphFlag>();
  for (const flag of flags) byKey.set(flag.key, flag);

  const report = (flagKey: string, index: number, field: 'flag' | 'value', code: string, message: string) => {
    issues.push({ flagKey, path: jsonPointer(['dependencies', index, field]), code, message });
  };
  for (const flag of flags) {
    (flag.dependencies ?? []).forEach((dependency, index) => {
      const target = byKey.get(dependency.flag);
      if (target === undefined) {
        report(
          flag.key,
          index,
          'flag',
          'unknown_dependency',
          `flag ${JSON.stringify(flag.key)}: dependencies[${index}].flag names flag ${JSON.stringify(dependency.flag)}, which does not exist in this environment`,
        );
      } else if (isFlagType(target.type) && !valueFitsType(target.type, dependency.value)) {
        report(
          flag.key,
          index,
          'value',
          'dependency_type_mismatch',
          `flag ${JSON.stringify(flag.key)}: dependencies[${index}].value can never match, because ${JSON.stringify(dependency.flag)} is a ${target.type} flag`,
        );
      }
    });
  }
  findCyclesAndDepth(flags, byKey, issues);
  return issues;
}

function valueFitsType(type: FlagDefinition['type'], value: unknown): boolean {
  const probe = new IssueCollector();
  checkTypedValue(probe, [], type, value);
  return probe.issues.length === 0;
}

/**
 * Iterative depth-first search (recursion would overflow on long chains). A grey node met again
 * closes a cycle, reported once per closing edge with the whole cycle spelled out. Depth is
 * computed in post-order and only meaningful when there is no cycle.
 */
function findCyclesAndDepth(
  flags: readonly GraphFlag[],
  byKey: Map<string, GraphFlag>,
  issues: ValidationIssue[],
): void {
  const state = new Map<string, 'grey' | 'black'>();
  const depth = new Map<string, number>();
  let cyclic = false;
  for (const root of flags) {
    if (state.has(root.key)) continue;
    const stack: Array<{ flag: GraphFlag; next: number }> = [{ flag: root, next: 0 }];
    state.set(root.key, 'grey');
    while (stack.length > 0) {
      const frame = stack[stack.length - 1];
      const dependencies = frame.flag.dependencies ?? [];
      if (frame.next < dependencies.length) {
        const index = frame.next++;
        const target = byKey.get(dependencies[index].flag);
        if (target === undefined) continue;
        const seen = state.get(target.key);
        if (seen === undefined) {
          state.set(target.key, 'grey');
          stack.push({ flag: target, next: 0 });
        } else if (seen === 'grey') {
          cyclic = true;
          const start = stack.findIndex((f) => f.flag.key === target.key);
          const cycle = [...stack.slice(start).map((f) => f.flag.key), target.key];
          issues.push({
            flagKey: frame.flag.key,
            path: jsonPointer(['dependencies', index, 'flag']),
            code: 'dependency_cycle',
            message: `flag ${JSON.stringify(frame.flag.key)}: dependencies[${index}].flag closes a prerequisite cycle: ${cycle.join(' → ')}`,
          });
        }
        continue;
      }
      let own = 0;
      for (const dependency of dependencies) {
        const below = depth.get(dependency.flag);
        if (below !== undefined) own = Math.max(own, below + 1);
      }
      depth.set(frame.flag.key, own);
      state.set(frame.flag.key, 'black');
      stack.pop();
    }
  }
  if (cyclic) return;
  for (const flag of flags) {
    const own = depth.get(flag.key) ?? 0;
    if (own > MAX_DEPENDENCY_DEPTH) {
      issues.push({
        flagKey: flag.key,
        path: '/dependencies',
        code: 'dependency_depth',
        message: `flag ${JSON.stringify(flag.key)}: prerequisite chains may be at most ${MAX_DEPENDENCY_DEPTH} flags deep (this one is ${own})`,
      });
    }
  }
}

/**
 * Every issue of a whole environment's flags: each definition on its own, duplicate keys, then the
 * dependency graph (only when every definition is valid, since the graph assumes their shapes).
 */
export function validateFlagSet(flags: readonly unknown[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const keys = flags.map((flag) =>
    typeof flag === 'object' && flag !== null ? (flag as { key?: unknown }).key : undefined,
  );
  const known = keys.filter((key): key is string => typeof key === 'string');
  const firstIndex = new Map<string, number>();
  flags.forEach((flag, index) => {
    const key = keys[index];
    const flagKey = typeof key === 'string' ? key : `#${index}`;
    for (const issue of validateFlagDefinition(flag, known)) {
      issues.push({ ...issue, flagKey, message: `flag ${JSON.stringify(flagKey)}: ${issue.message}` });
    }
    if (typeof key === 'string') {
      if (firstIndex.has(key)) {
        issues.push({
          flagKey,
          path: '/key',
          code: 'duplicate',
          message: `flag ${JSON.stringify(key)}: key appears more than once in the set`,
        });
      } else firstIndex.set(key, index);
    }
  });
  if (issues.length > 0) return issues;
  return validateDependencyGraph(flags as GraphFlag[]);
}
