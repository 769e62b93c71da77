export { createConfigStateStore, type ConfigStateStore, type ConfigCommit, type ConfigChange, type ListenerFailure } from './config-state-store.js';
export { emptyState, DEFAULT_TTL_SECONDS, type ConfigState, type CurrentConfig, type EnvironmentTarget, type FlagRecord, type PrivacySettings, type VersionSnapshot, type VersionMeta } from './versions.model.js';
export { createConfigMutator, resolveTarget, type AppliedEdit, type ConfigEdit, type ConfigMutationRequest, type ConfigMutator } from './config-mutation.js';
export { definitionOf, dependencyChanges, diffStates, redactSubjects, visibilityChanges, type DependencyChange, type VisibilityChange } from './config-diff.js';
export { createVersionsService, type VersionDiff, type VersionsService } from './versions.service.js';
export { versionsRoutes } from './versions.routes.js';
export { ConditionSchema, ConfigStateSchema, DependencySchema, FLAG_KEY_DESCRIPTION, FlagRecordSchema, flagFieldSchemas, PrivacySchema, RolloutSchema, RuleSchema, VariantSchema } from './config-state.schemas.js';
export { approvalRequired, clearanceContext, clearDirectMove, clearedId, clearedPermission, clearedSalt, clearedSource, proposedId, shellWord, type Clearance, type ProposalHint } from './clearance.js';
