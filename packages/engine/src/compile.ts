// compileFlagSet: validates a whole environment's flags, then compiles them once (per configuration
// version) with compileValidatedFlagSet (compile-set.ts) into a CompiledFlagSet whose evaluate()
// is the hot path.
import type { FlagDefinition } from './model.js';
import { ConfigInvalidError } from './config-invalid-error.js';
import { validateFlagSet } from './dependency-graph.js';
import type { ServedExperiment } from './experiment-model.js';
import { compileValidatedFlagSet, type CompiledFlagSet } from './compile-set.js';

export type { CompiledFlagSet } from './compile-set.js';

/**
 * `experiments`: the served experiments of the environment (see compileValidatedFlagSet).
 * @throws ConfigInvalidError when any definition is invalid, a prerequisite is unknown, the
 * prerequisites form a cycle, or a `matches` condition finds no regex engine installed (code
 * regex_engine_missing; see installRegexEngine).
 */
export function compileFlagSet(
  flags: readonly FlagDefinition[],
  experiments: readonly ServedExperiment[] = [],
): CompiledFlagSet {
  const issues = validateFlagSet(flags);
  if (issues.length > 0) throw new ConfigInvalidError(issues);
  return compileValidatedFlagSet(flags, experiments);
}
