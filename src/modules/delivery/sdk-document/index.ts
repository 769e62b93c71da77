export { createAdvancedService, type AdvancedService, type DeliveryAccess, type SnapshotOf } from './advanced.service.js';
export { advancedRoutes, type AdvancedRouteDeps } from './advanced.routes.js';
export { CORE_SCHEMA_VERSION, type CoreAudience, type CoreDocument, type CoreFlag } from './advanced.model.js';
export { clientProjectionKeys, readsPrivateAttribute } from './client-projection.js';
