export { createSyncMeter, monthKeyOf, nextMonthStartOf, type SyncAdmission } from './sync-meter.js';
