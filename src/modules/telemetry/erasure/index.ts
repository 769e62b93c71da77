export { createErasureService, registerErasureJobs } from './erasure.service.js';
export { erasureRoutes } from './erasure.routes.js';
