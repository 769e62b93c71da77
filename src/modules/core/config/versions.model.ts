// The composite state of one environment: what every config version snapshots (CONTRACT section 5).
import type { FlagDefinition, ServedExperiment } from '@ensign/engine';
import type { JournalAuthority } from '../journal/index.js';

export interface FlagRecord extends FlagDefinition {
  createdAt: string;
  updatedAt: string;
}

export interface PrivacySettings {
  /** Context attributes never sent to clients; rules reading them are dropped from client projections. */
  privateAttributes: string[];
  /** Flag metadata keys that client (pub_) projections keep; every other key is removed. */
  clientMetadataKeys: string[];
}

export interface ConfigState {
  flags: Record<string, FlagRecord>;
  privacy: PrivacySettings;
  settings: { ttlSeconds: number };
  /** Running and paused experiments by id, as the engine assigns them (docs/decisions/0018).
   * Written only by the experiments module; absent in states written before it existed. */
  experiments?: Record<string, ServedExperiment>;
}

export const DEFAULT_TTL_SECONDS = 60;

export function emptyState(): ConfigState {
  return {
    flags: {},
    privacy: { privateAttributes: [], clientMetadataKeys: [] },
    settings: { ttlSeconds: DEFAULT_TTL_SECONDS },
  };
}

/**
 * A state as stored (JSON text) read back. States written before a flag field existed lack it; they
 * read with that field's default, so every reader (management view, snapshots, diffs, delivery,
 * evaluation) sees complete records and a diff across the change shows no phantom edit:
 * `enabled` true and `offValue` the flag's value (docs/decisions/0010-flag-off-switch.md).
 */
export function parseStoredState(text: string): ConfigState {
  const state = JSON.parse(text) as ConfigState;
  for (const flag of Object.values(state.flags ?? {})) {
    const stored = flag as Partial<FlagRecord> & FlagRecord;
    if (stored.enabled === undefined) stored.enabled = true;
    if (stored.offValue === undefined) stored.offValue = stored.value;
  }
  return state;
}

export interface EnvironmentTarget {
  appId: string;
  envId: string;
  env: string;
}

export interface CurrentConfig {
  version: number;
  state: ConfigState;
}

export interface VersionMeta {
  version: number;
  createdAt: string;
  changeId: string | null;
  operation: string;
  authority: JournalAuthority;
}

export interface VersionSnapshot extends VersionMeta {
  state: ConfigState;
}
