// Projects an environment's composite state onto core schema v1 for one audience. Flags are emitted
// in key order and privacy lists as stored (sorted), so every process builds the same bytes for the
// same version and audience, and so the same entity tag behind a load balancer.
import type { ServedExperiment } from '@ensign/engine';
import type { ConfigState, EnvironmentTarget, PrivacySettings } from '../../core/config/index.js';
import { CORE_SCHEMA_VERSION, type CoreAudience, type CoreDocument, type CoreFlag } from './advanced.model.js';
import { clientMetadata, clientProjectionKeys, clientRules, type ProjectableFlag } from './client-projection.js';

/** One flag as an audience receives it (privacy only matters to clients). */
export function coreFlag(flag: ProjectableFlag, audience: CoreAudience, privacy: PrivacySettings): CoreFlag {
  const client = audience === 'client';
  return {
    type: flag.type,
    value: flag.value,
    enabled: flag.enabled,
    offValue: flag.offValue,
    clientVisible: flag.clientEnabled === true,
    rollout: flag.rollout ?? null,
    variants: flag.variants ?? null,
    rules: client ? clientRules(flag.rules ?? [], privacy.privateAttributes).kept : (flag.rules ?? []),
    overrides: client ? {} : (flag.overrides ?? {}),
    dependencies: flag.dependencies ?? [],
    metadata: client ? clientMetadata(flag.metadata ?? {}, privacy) : (flag.metadata ?? {}),
  };
}

/** The flags of the document: all of them for servers, the client projection for clients. */
export function coreFlags(state: ConfigState, audience: CoreAudience): Record<string, CoreFlag> {
  const keys = audience === 'client' ? [...clientProjectionKeys(state.flags).keys()] : Object.keys(state.flags).sort();
  const flags: Record<string, CoreFlag> = {};
  for (const key of keys) flags[key] = coreFlag(state.flags[key]!, audience, state.privacy);
  return flags;
}

function runningExperiments(state: ConfigState): ServedExperiment[] {
  const all = state.experiments ?? {};
  return Object.keys(all)
    .sort()
    .map((id) => all[id]!)
    .filter((e) => e.state === 'running');
}

/** The delivery fields that vary by credential or process; the rest of the document does not. */
export type VariableDelivery = Pick<CoreDocument['delivery'], 'etag' | 'generatedAt'>;

export function coreDocument(
  target: EnvironmentTarget,
  version: number,
  state: ConfigState,
  audience: CoreAudience,
  variable: VariableDelivery,
): CoreDocument {
  const ttlSeconds = state.settings.ttlSeconds;
  return {
    schemaVersion: CORE_SCHEMA_VERSION,
    appId: target.appId,
    env: target.env,
    version,
    audience,
    // Polling as often as the document may be cached is the most an SDK needs: a 304 costs a sync
    // like a 200, so polling faster only spends quota.
    delivery: { ttlSeconds, etag: variable.etag, generatedAt: variable.generatedAt, pollIntervalSeconds: ttlSeconds },
    privacy: {
      privateAttributes: [...state.privacy.privateAttributes],
      clientMetadataKeys: [...state.privacy.clientMetadataKeys],
    },
    flags: coreFlags(state, audience),
    // Paused experiments assign nobody, so they are not sent; clients (pub_ keys) get assignments
    // through OFREP, never experiment definitions (targeting may read private attributes).
    ...(audience === 'server' ? { experiments: runningExperiments(state) } : {}),
  };
}
