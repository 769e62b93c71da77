// Instructions per evaluation, for a machine too loaded for timings: evaluates `rounds` rounds of
// 500 contexts × 200 flags (after one warm-up round) with one implementation, so that running it
// under `valgrind --tool=callgrind` with two round counts gives the instructions of the difference.
// Used by scripts/engine-instructions.sh; see bench/RESULTS.md.
import { FlagdCore } from '@openfeature/flagd-core';
import type { EvaluationContext as FlagdContext, JsonValue } from '@openfeature/core';
import { compileFlagSet } from '@ensign/engine';
import { benchContexts, benchFlags, flagdConfiguration } from './evaluate-engine.js';

const [implementation = 'ensign', roundsText = '1'] = process.argv.slice(2);
const rounds = Number(roundsText);
const flags = benchFlags();
const contexts = benchContexts(500);
const keys = flags.map((f) => f.key);
let evaluateOne: (c: number, f: number) => unknown;
if (implementation === 'ensign') {
  const set = compileFlagSet(flags);
  evaluateOne = (c, f) => set.evaluate(keys[f]!, contexts[c]).value;
} else {
  const core = new FlagdCore();
  core.setConfigurations(flagdConfiguration(flags));
  const silent = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined };
  const resolvers = flags.map((flag) => {
    const key = flag.key;
    if (flag.type === 'bool') return (c: FlagdContext) => core.resolveBooleanEvaluation(key, false, c, silent).value;
    if (flag.type === 'string') return (c: FlagdContext) => core.resolveStringEvaluation(key, '', c, silent).value;
    if (flag.type === 'number') return (c: FlagdContext) => core.resolveNumberEvaluation(key, 0, c, silent).value;
    return (c: FlagdContext) => core.resolveObjectEvaluation(key, {} as JsonValue, c, silent).value;
  });
  evaluateOne = (c, f) => resolvers[f]!(contexts[c] as FlagdContext);
}
let sink = 0;
for (let r = 0; r <= rounds; r++) {
  for (let c = 0; c < contexts.length; c++)
    for (let f = 0; f < keys.length; f++) if (evaluateOne(c, f) !== undefined) sink++;
}
if (sink === 0) throw new Error('nothing was evaluated');
