export { createErasureService } from './erasure.service.js';
export { registerErasureJobs } from './erasure.jobs.js';
export { erasureRoutes } from './erasure.routes.js';
