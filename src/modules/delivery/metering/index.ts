export { createSyncMeter, meteringUnavailable, monthKeyOf, nextMonthStartOf, type MeterSubject, type SyncAdmission, type SyncMeter, type SyncMeterOptions } from './sync-meter.js';
