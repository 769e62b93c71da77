// The flag record (CONTRACT section 4): its type and schemas. They are defined with the
// configuration state that holds every flag (versions/config-state.schemas.ts and versions.model.ts),
// because this module depends on versions and not the other way round; this is where to find them
// from the flags side (docs/decisions/0008-flag-record-location.md).
export { FlagRecordSchema, flagFieldSchemas } from '../config/index.js';
