export { createErasureService, registerErasureJobs, ERASE_JOB, type ErasureReceipt, type ErasureService } from './erasure.service.js';
export { erasureRoutes } from './erasure.routes.js';
