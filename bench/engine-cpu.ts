// The engine against @openfeature/flagd-core in CPU time, for a loaded machine: 21 rounds of
// 500 contexts × 200 flags per implementation, alternated, each read with process.cpuUsage, so a
// busy moment falls on both; prints CPU ns per evaluation and the median of the rounds' ratios.
// Usage: npx tsx bench/engine-cpu.ts (see bench/RESULTS.md, issue 24).
import { FlagdCore } from '@openfeature/flagd-core';
import type { EvaluationContext as FlagdContext, JsonValue } from '@openfeature/core';
import { compileFlagSet } from '@ensign/engine';
import { benchContexts, benchFlags, flagdConfiguration } from './evaluate-engine.js';

const ROUNDS = 21;
const flags = benchFlags();
const contexts = benchContexts(500);
const keys = flags.map((f) => f.key);
const set = compileFlagSet(flags);
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
let sink = 0;
const ensign = () => {
  for (const context of contexts) for (const key of keys) if (set.evaluate(key, context).value !== undefined) sink++;
};
const flagd = () => {
  for (const context of contexts)
    for (const resolve of resolvers) if (resolve(context as FlagdContext) !== undefined) sink++;
};
const cpuOf = (round: () => void) => {
  const before = process.cpuUsage();
  round();
  const used = process.cpuUsage(before);
  return used.user + used.system;
};
for (let i = 0; i < 2; i++) {
  ensign();
  flagd();
} // warm-up
const ratios: number[] = [];
let ensignTotal = 0;
let flagdTotal = 0;
for (let i = 0; i < ROUNDS; i++) {
  const ours = cpuOf(ensign);
  const theirs = cpuOf(flagd);
  ratios.push(theirs / ours);
  ensignTotal += ours;
  flagdTotal += theirs;
}
if (sink === 0) throw new Error('nothing was evaluated');
ratios.sort((a, b) => a - b);
const perEvaluation = (total: number) => ((total / ROUNDS / (contexts.length * keys.length)) * 1000).toFixed(0);
console.log(
  `CPU ns per evaluation: Ensign ${perEvaluation(ensignTotal)}, flagd-core ${perEvaluation(flagdTotal)}; ratio median ${ratios[ROUNDS >> 1]!.toFixed(2)}× (${ratios[0]!.toFixed(2)}–${ratios[ROUNDS - 1]!.toFixed(2)})`,
);
