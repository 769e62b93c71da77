export { createConfigStateStore, type ConfigStateStore, type ConfigChange } from './config-state-store.js';
export {
  emptyState,
  type ConfigState,
  type CurrentConfig,
  type EnvironmentTarget,
  type FlagRecord,
  type PrivacySettings,
} from './versions.model.js';
export {
  createConfigMutator,
  resolveTarget,
  type ConfigEdit,
  type ConfigMutationRequest,
  type ConfigMutator,
} from './config-mutation.js';
export {
  definitionOf,
  dependencyChanges,
  diffStates,
  visibilityChanges,
  type DependencyChange,
  type VisibilityChange,
} from './config-diff.js';
export { createVersionsService } from './versions.service.js';
export { versionsRoutes } from './versions.routes.js';
export {
  ConditionSchema,
  ConfigStateSchema,
  DependencySchema,
  FLAG_KEY_DESCRIPTION,
  FlagRecordSchema,
  flagFieldSchemas,
  PrivacySchema,
  RolloutSchema,
  RuleSchema,
  VariantSchema,
} from './config-state.schemas.js';
export {
  clearanceContext,
  clearDirectMove,
  clearedId,
  clearedPermission,
  clearedSalt,
  clearedSource,
  proposedId,
  proposalHint,
  type Clearance,
} from './clearance.js';
