export { createExportsService, signingSecretsOf, type ExportsService, type ExportsServiceDeps } from './exports.service.js';
export { exportsRoutes, type ExportsRouteDeps } from './exports.routes.js';
export { checkTarget, isPublicAddress, resolveDeliveryAddress, AddressNotAllowedError, type ExportPolicy } from './export-policy.js';
export { DESTINATION_STATUSES, type Destination, type DestinationHealth } from './exports.model.js';
export { createDeliveryWorker, registerDeliveryJobs, retryDelay, DELIVER_JOB, SCHEDULE_JOB, MAX_ATTEMPTS, type DeliveryWorker } from './webhook-delivery-worker.js';
export { createWebhookSender, type WebhookSender } from './webhook-sender.js';
export { registerBackfillJobs, runBackfill, BACKFILL_JOB, type BackfillView } from './backfills.js';
