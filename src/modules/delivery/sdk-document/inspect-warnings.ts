// Warnings of an inspection: things a valid document does that its author may not intend — mostly
// what the client projection would change or reveal, and flags the document would delete.
import type { CurrentConfig } from '../../core/config/index.js';
import { clientProjectionKeys, clientRules, readsPrivateAttribute } from './client-projection.js';
import { flagPath, type InspectionIssue, type NormalizedDocument } from './inspection.model.js';

type Flag = NormalizedDocument['flags'][string];

/** Warnings about one flag that pub_ keys receive. */
function projectionWarnings(key: string, flag: Flag, doc: NormalizedDocument, dependents: string[]): InspectionIssue[] {
  const out: InspectionIssue[] = [];
  if (dependents.length > 0) {
    out.push({
      path: flagPath(key, '/clientVisible'),
      code: 'dependency_exposed',
      message: `flag "${key}" is not client-visible, but client-visible flags depend on it (${dependents.join(', ')}): pub_ keys receive it in the client projection`,
    });
  }
  const { dropped } = clientRules(flag.rules, doc.privacy.privateAttributes);
  flag.rules.forEach((rule, index) => {
    if (!dropped.includes(rule.id)) return;
    const read = rule.conditions
      .map((c) => c.attribute)
      .filter((a) => readsPrivateAttribute(a, doc.privacy.privateAttributes));
    out.push({
      path: flagPath(key, `/rules/${index}`),
      code: 'rule_dropped_for_clients',
      message: `rule "${rule.id}" of flag "${key}" reads private attribute ${[...new Set(read)].join(', ')}: pub_ keys receive the flag without this rule`,
    });
  });
  if (Object.keys(flag.overrides).length > 0) {
    out.push({
      path: flagPath(key, '/overrides'),
      code: 'overrides_not_sent_to_clients',
      message: `flag "${key}" has overrides, which pub_ keys never receive`,
    });
  }
  const removed = Object.keys(flag.metadata)
    .filter((k) => !doc.privacy.clientMetadataKeys.includes(k))
    .sort();
  if (removed.length > 0) {
    out.push({
      path: flagPath(key, '/metadata'),
      code: 'metadata_filtered',
      message: `metadata keys ${removed.join(', ')} of flag "${key}" are not in privacy.clientMetadataKeys: pub_ keys receive the flag without them`,
    });
  }
  return out;
}

export function inspectionWarnings(doc: NormalizedDocument, base: CurrentConfig): InspectionIssue[] {
  const graph = Object.fromEntries(
    Object.entries(doc.flags).map(([key, f]) => [
      key,
      { clientEnabled: f.clientVisible, dependencies: f.dependencies },
    ]),
  );
  const projection = clientProjectionKeys(graph);
  const warnings: InspectionIssue[] = [];
  for (const [key, via] of projection) {
    // Projected flags that name this one directly: the reason it is exposed.
    const dependents =
      via === 'dependency'
        ? [...projection.keys()].filter((k) => doc.flags[k]!.dependencies.some((d) => d.flag === key))
        : [];
    warnings.push(...projectionWarnings(key, doc.flags[key]!, doc, dependents));
  }
  for (const key of Object.keys(base.state.flags).sort()) {
    if (Object.prototype.hasOwnProperty.call(doc.flags, key)) continue;
    warnings.push({
      path: flagPath(key),
      code: 'flag_removed',
      message: `flag "${key}" exists at version ${base.version} and is not in the document: applying the document would delete it`,
    });
  }
  return warnings.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
