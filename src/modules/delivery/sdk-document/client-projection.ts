// The client projection: what a pub_ key may learn about an environment's flags. pub_ keys ship in
// web pages and mobile apps, so anyone can read what they receive. They get:
// - the clientEnabled flags, plus every flag those depend on (transitively): a client cannot
//   evaluate a prerequisite it does not have, so a dependency becomes visible in the projection;
// - no overrides (they name real subjects);
// - no rule that reads a private attribute (its values would reveal private data, and a client
//   should not hold the attribute to evaluate it);
// - only the metadata keys the environment lists in privacy.clientMetadataKeys.
import type { Dependency, FlagDefinition, Rule } from '@ensign/engine';
import type { PrivacySettings } from '../../core/config/index.js';

/** Why a flag is in the client projection: its own setting, or a visible flag depends on it. */
export type ClientVisibility = 'clientVisible' | 'dependency';

type GraphFlag = { clientEnabled: boolean; dependencies: Dependency[] };

/** The keys of the client projection with the reason each is there, in key order. Prerequisites
 * naming flags that do not exist are skipped (such a configuration is refused before serving). */
export function clientProjectionKeys(flags: Readonly<Record<string, GraphFlag>>): Map<string, ClientVisibility> {
  const reasons = new Map<string, ClientVisibility>();
  const pending: string[] = [];
  for (const key of Object.keys(flags).sort()) {
    if (flags[key]!.clientEnabled !== true) continue;
    reasons.set(key, 'clientVisible');
    pending.push(key);
  }
  // Iterative walk: prerequisite chains may be long, and a cycle must not loop (each key once).
  while (pending.length > 0) {
    const flag = flags[pending.pop()!]!;
    for (const dependency of flag.dependencies ?? []) {
      if (reasons.has(dependency.flag) || !Object.prototype.hasOwnProperty.call(flags, dependency.flag)) continue;
      reasons.set(dependency.flag, 'dependency');
      pending.push(dependency.flag);
    }
  }
  return new Map([...reasons].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Whether a condition on `attribute` reads a private attribute: the attribute itself, anything
 * inside it (`user` private hides `user.email`), or an object that contains it (`user.email`
 * private hides a condition on `user`, which needs the whole object and so the private part).
 */
export function readsPrivateAttribute(attribute: string, privateAttributes: readonly string[]): boolean {
  return privateAttributes.some(
    (p) => attribute === p || attribute.startsWith(`${p}.`) || p.startsWith(`${attribute}.`),
  );
}

/** The rules a client keeps, and the ids of those it does not. */
export function clientRules(
  rules: readonly Rule[],
  privateAttributes: readonly string[],
): { kept: Rule[]; dropped: string[] } {
  const kept: Rule[] = [];
  const dropped: string[] = [];
  for (const rule of rules) {
    if (rule.conditions.some((c) => readsPrivateAttribute(c.attribute, privateAttributes))) dropped.push(rule.id);
    else kept.push(rule);
  }
  return { kept, dropped };
}

/** The metadata a client keeps: only the keys listed in clientMetadataKeys. */
export function clientMetadata(
  metadata: Readonly<Record<string, unknown>>,
  privacy: PrivacySettings,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of privacy.clientMetadataKeys) {
    if (Object.prototype.hasOwnProperty.call(metadata, key)) out[key] = metadata[key];
  }
  return out;
}

/** Flag fields the projection reads. */
export type ProjectableFlag = Pick<
  FlagDefinition,
  | 'type'
  | 'value'
  | 'enabled'
  | 'offValue'
  | 'clientEnabled'
  | 'rollout'
  | 'variants'
  | 'rules'
  | 'overrides'
  | 'dependencies'
  | 'metadata'
>;
