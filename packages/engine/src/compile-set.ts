// compileValidatedFlagSet: compiles an environment's flags, already validated, once (per
// configuration version) into a CompiledFlagSet whose evaluate() is the hot path. Validation lives
// in compile.ts (compileFlagSet) and is not imported here, so a browser bundle that compiles only
// documents the server validated (served-document.ts) carries none of it (decision 0056).
import type { EvaluationContext, EvaluationResult, FlagDefinition, FlagType } from './model.js';
import { ConfigInvalidError } from './config-invalid-error.js';
import { compileFlag, type CompiledFlag } from './compile-flag.js';
import { cloneData, deepFreeze } from './json-value.js';
import { errorResult, flagNotFoundResult } from './results.js';
import { experimentFits } from './compile-experiment.js';
import type { ServedExperiment } from './experiment-model.js';
import { installedRegexEngine, needsRegexEngine, REGEX_ENGINE_MISSING } from './targeting-regex.js';

export interface CompiledFlagSet {
  /**
   * Evaluates one flag. Never throws. `context` may be omitted (an empty context); `expectedType`,
   * when given, turns a flag of another type into a TYPE_MISMATCH error result. Returned results
   * are frozen and shared: do not mutate them.
   */
  evaluate(key: string, context?: EvaluationContext, expectedType?: FlagType): EvaluationResult;
  /** Evaluates every flag, in the order of keys(). */
  evaluateAll(context?: EvaluationContext): EvaluationResult[];
  has(key: string): boolean;
  /** Flag keys in the order the definitions were given. */
  keys(): readonly string[];
}

const EMPTY_CONTEXT: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * `flags` must be valid (validateFlagSet finds no issue): nothing here checks them again. A flag
 * set that is not valid compiles into an evaluator that may answer wrongly, though evaluate()
 * still never throws (a definition that breaks at evaluation answers an ERROR result).
 * `experiments`: the served experiments of the environment. Running ones assign subjects on their
 * flag; paused ones, experiments on a missing flag or with variants of another type than the flag's
 * are ignored (the flag's ordinary evaluation is served). With two running on one flag — the
 * service never starts a second one — the lower id wins, so every evaluator decides alike.
 * @throws ConfigInvalidError when a `matches` condition of an experiment finds no regex engine
 * installed (code regex_engine_missing; see installRegexEngine).
 */
export function compileValidatedFlagSet(
  flags: readonly FlagDefinition[],
  experiments: readonly ServedExperiment[] = [],
): CompiledFlagSet {
  // Validation reports a flag's `matches` without an engine (compileFlagSet never gets here then);
  // for flags compiled without it, and for served experiments, the installed engines are checked here.
  if (installedRegexEngine() === null) {
    const flag = flags.find((f) => needsRegexEngine([f]));
    if (flag !== undefined) {
      throw new ConfigInvalidError([
        {
          flagKey: flag.key,
          path: '/rules',
          code: 'regex_engine_missing',
          message: `flag ${JSON.stringify(flag.key)}: a condition ${REGEX_ENGINE_MISSING}`,
        },
      ]);
    }
    const experiment = experiments.find((e) => needsRegexEngine([], [e]));
    if (experiment !== undefined) {
      throw new ConfigInvalidError([
        {
          flagKey: experiment.flagKey,
          path: '/targeting',
          code: 'regex_engine_missing',
          message: `experiment ${JSON.stringify(experiment.key)} on flag ${JSON.stringify(experiment.flagKey)}: its targeting ${REGEX_ENGINE_MISSING}`,
        },
      ]);
    }
  }

  // Results hand out the definitions' values by reference: a private frozen copy makes sure
  // neither the caller nor a consumer of a result can change what later evaluations serve.
  const definitions = deepFreeze(cloneData(flags) as FlagDefinition[]);
  const running = runningByFlag(definitions, deepFreeze(cloneData(experiments) as ServedExperiment[]));
  const compiled = new Map<string, CompiledFlag>();
  const linkers: Array<(all: Map<string, CompiledFlag>) => void> = [];
  for (const definition of definitions) {
    const { compiled: flag, link } = compileFlag(definition, running.get(definition.key) ?? null);
    compiled.set(flag.key, flag);
    linkers.push(link);
  }
  for (const link of linkers) link(compiled);
  const keys = Object.freeze(definitions.map((definition) => definition.key));

  const evaluate = (key: string, context?: EvaluationContext, expectedType?: FlagType): EvaluationResult => {
    const flag = compiled.get(key);
    if (flag === undefined) return flagNotFoundResult(key);
    if (expectedType !== undefined && expectedType !== flag.type) return flag.typeMismatch(expectedType);
    if (context !== undefined && (typeof context !== 'object' || context === null || Array.isArray(context)))
      return flag.invalidContext;
    try {
      if (context === undefined) return flag.run(EMPTY_CONTEXT, undefined);
      const targetingKey: unknown = context.targetingKey;
      if (typeof targetingKey === 'string') {
        // An empty key would put every anonymous subject in one bucket: treat it as missing.
        return flag.run(context, targetingKey.length > 0 ? targetingKey : undefined);
      }
      if (targetingKey === undefined || targetingKey === null) return flag.run(context, undefined);
      return flag.invalidContext;
    } catch (error) {
      // Only a context that is not plain data (a throwing getter, a Proxy), or a definition that
      // was never validated, can get here: JSON contexts never make a valid flag throw. Keep the
      // promise that evaluate never throws.
      const reason = error instanceof Error ? error.message : String(error);
      return errorResult(key, 'GENERAL', 'invalid_context', `reading the evaluation context failed: ${reason}`);
    }
  };

  return {
    evaluate,
    evaluateAll: (context) => keys.map((key) => evaluate(key, context)),
    has: (key) => compiled.has(key),
    keys: () => keys,
  };
}

function runningByFlag(
  flags: readonly FlagDefinition[],
  experiments: readonly ServedExperiment[],
): Map<string, ServedExperiment> {
  const types = new Map(flags.map((f) => [f.key, f.type]));
  const byFlag = new Map<string, ServedExperiment>();
  for (const experiment of [...experiments].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const type = types.get(experiment.flagKey);
    if (
      experiment.state !== 'running' ||
      type === undefined ||
      byFlag.has(experiment.flagKey) ||
      !experimentFits(experiment, type)
    )
      continue;
    byFlag.set(experiment.flagKey, experiment);
  }
  return byFlag;
}
