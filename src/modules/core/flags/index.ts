export { createFlagsService } from './flags.service.js';
export { flagsRoutes } from './flags.routes.js';
export { type BulkChanges, type FlagFields, type FlagPatchOp } from './flags.model.js';
/** The pure edits: the next state of a change without applying it (previews, impact reports). */
export { bulkApply } from './bulk-apply.js';
export { patchFlag, deleteFlag } from './flag-edits.js';
export { BulkApplyBody, PatchFlagBody } from './flags.schemas.js';
/** The flag record's type and schemas (defined with the configuration state; see flag-record.ts). */
export { FlagRecordSchema, flagFieldSchemas } from './flag-record.js';
