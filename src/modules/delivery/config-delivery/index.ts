export { deliveryRoutes } from './delivery.routes.js';
export { createDeliveryService, type DeliveryService } from './delivery.service.js';
export type { Snapshot } from './snapshot.js';
