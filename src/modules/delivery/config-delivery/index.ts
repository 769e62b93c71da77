export { deliveryRoutes, type DeliveryRouteDeps } from './delivery.routes.js';
export { createDeliveryService, type DeliveryDeps, type DeliveryService } from './delivery.service.js';
export { createSnapshotCache, type SnapshotCache, type SnapshotCacheOptions } from './snapshot-cache.js';
export type { Snapshot } from './snapshot.js';
export type { Audience } from './legacy-envelope.js';
