export { createConfigStateStore, type ConfigStateStore, type ConfigCommit, type ConfigChange } from './config-state-store.js';
export { emptyState, DEFAULT_TTL_SECONDS, type ConfigState, type CurrentConfig, type EnvironmentTarget, type FlagRecord, type PrivacySettings, type VersionSnapshot, type VersionMeta } from './versions.model.js';
