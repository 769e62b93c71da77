export { deliveryRoutes, type DeliveryRouteDeps } from './delivery.routes.js';
export { registerPublicCors, PUBLIC_CORS_OPTIONS } from './public-cors.js';
export { ifNoneMatchHits } from './entity-tag.js';
