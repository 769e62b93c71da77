export { createKeysService, type KeysService, type KeysServiceOptions } from './keys.service.js';
export { keysRoutes } from './keys.routes.js';
export { IssuedKeySchema, KeyRecordSchema } from './keys.schemas.js';
export type { IssuedKey, KeyRecord, KeyType } from './keys.model.js';
