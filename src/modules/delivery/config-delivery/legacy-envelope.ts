// The frozen legacy configuration document (CONTRACT section 4) projected from an environment's
// state for one audience. Flags are emitted in key order so that every process produces the same
// bytes for the same version, and therefore the same ETag behind a load balancer.
import type { Rule } from '@ensign/engine';
import type { ConfigState, EnvironmentTarget, FlagRecord } from '../../core/config/index.js';

/** `server`: sdk_ keys on /config, the whole document. `client`: pub_ keys on /public-config. */
export type Audience = 'server' | 'client';

/** The final pseudo-rule that carries a flag's rollout or variants to legacy server SDKs, which
 * evaluate overrides → rules → value and know nothing else. */
type TrailingRule = {
  id: '$rollout' | '$variants';
  conditions: [];
  serve: { rollout: unknown } | { variants: unknown };
};

export interface LegacyEnvelope {
  appId: string;
  env: string;
  version: number;
  doc: {
    flags: Record<string, { type: string; value: unknown }>;
    overrides: Record<string, Record<string, unknown>>;
    rules: Record<string, (Rule | TrailingRule)[]>;
  };
  ttlSeconds: number;
}

function legacyRules(flag: FlagRecord): (Rule | TrailingRule)[] {
  const rules: (Rule | TrailingRule)[] = [...flag.rules];
  if (flag.rollout) rules.push({ id: '$rollout', conditions: [], serve: { rollout: flag.rollout } });
  else if (flag.variants) rules.push({ id: '$variants', conditions: [], serve: { variants: flag.variants } });
  return rules;
}

export function legacyEnvelope(
  target: EnvironmentTarget,
  version: number,
  state: ConfigState,
  audience: Audience,
): LegacyEnvelope {
  const doc: LegacyEnvelope['doc'] = { flags: {}, overrides: {}, rules: {} };
  for (const key of Object.keys(state.flags).sort()) {
    const flag = state.flags[key]!;
    if (audience === 'client' && !flag.clientEnabled) continue;
    // A disabled flag is its off value to every SDK: legacy SDKs know no off switch, so the
    // document says it the way they understand, a value with no overrides and no rules.
    if (flag.enabled === false) {
      doc.flags[key] = { type: flag.type, value: flag.offValue };
      continue;
    }
    doc.flags[key] = { type: flag.type, value: flag.value };
    // Clients get neither: overrides name subjects and rules can read private attributes.
    if (audience === 'client') continue;
    if (Object.keys(flag.overrides).length > 0) doc.overrides[key] = flag.overrides;
    const rules = legacyRules(flag);
    if (rules.length > 0) doc.rules[key] = rules;
  }
  return { appId: target.appId, env: target.env, version, doc, ttlSeconds: state.settings.ttlSeconds };
}
