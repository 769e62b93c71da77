// The flags a new document changed: those added, removed or with another definition, and those
// whose served experiment changed. Run once per new document, never on the evaluation path.
import type { CoreDocument } from '@ensign/engine/core';

export function changedFlagKeys(before: CoreDocument, after: CoreDocument): string[] {
  const experimentsOf = (document: CoreDocument) => {
    const byFlag = new Map<string, string>();
    for (const experiment of document.experiments ?? [])
      byFlag.set(experiment.flagKey, (byFlag.get(experiment.flagKey) ?? '') + JSON.stringify(experiment));
    return byFlag;
  };
  const experimentsBefore = experimentsOf(before);
  const experimentsAfter = experimentsOf(after);
  const keys = new Set([
    ...Object.keys(before.flags),
    ...Object.keys(after.flags),
    ...experimentsBefore.keys(),
    ...experimentsAfter.keys(),
  ]);
  return [...keys]
    .filter(
      (key) =>
        JSON.stringify(before.flags[key]) !== JSON.stringify(after.flags[key]) ||
        experimentsBefore.get(key) !== experimentsAfter.get(key),
    )
    .sort();
}
