export { createExportsService } from './exports.service.js';
export { exportsRoutes } from './exports.routes.js';
export { createDeliveryWorker, registerDeliveryJobs } from './webhook-delivery-worker.js';
export { createWebhookSender } from './webhook-sender.js';
export { registerBackfillJobs } from './backfills.js';
