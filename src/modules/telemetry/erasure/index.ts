export { createErasureService, registerErasureJobs, ERASE_JOB, TOMBSTONE_MS, type ErasureReceipt, type ErasureService } from './erasure.service.js';
export { erasureRoutes } from './erasure.routes.js';
