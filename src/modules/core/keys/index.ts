export { createKeysService, type KeysService } from './keys.service.js';
export { issueKey } from './issue-key.js';
export { keysRoutes } from './keys.routes.js';
export { IssuedKeySchema } from './keys.schemas.js';
export type { IssuedKey } from './keys.model.js';
