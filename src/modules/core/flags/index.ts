export { createFlagsService, type FlagsService, type PatchFlagInput, type BulkApplyInput } from './flags.service.js';
export { flagsRoutes } from './flags.routes.js';
export { FLAG_PATCH_OPS, ADVANCED_FLAG_FIELDS, type AdvancedFlagFields, type BulkChanges, type FlagFields, type FlagPatch, type FlagPatchOp } from './flags.model.js';
/** The pure edits: the next state of a change without applying it (previews, impact reports). */
export { bulkApply } from './bulk-apply.js';
export { patchFlag, deleteFlag } from './flag-edits.js';
export { BulkApplyBody, PatchFlagBody } from './flags.schemas.js';
/** The flag record's type and schemas (defined with the configuration state; see flag-record.ts). */
export { DependencySchema, FLAG_KEY_DESCRIPTION, FlagRecordSchema, flagFieldSchemas, RolloutSchema, RuleSchema, VariantSchema, type FlagRecord } from './flag-record.js';
