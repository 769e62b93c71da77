export { createFlagsService, type FlagsService, type PatchFlagInput, type BulkApplyInput } from './flags.service.js';
export { flagsRoutes } from './flags.routes.js';
export { FLAG_PATCH_OPS, type FlagFields, type FlagPatchOp } from './flags.model.js';
