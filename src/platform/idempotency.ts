// Caller-stable idempotency for every create and mutation route (CONTRACT section 1), in three parts:
// the HTTP helper (idempotency-http.ts), the service (idempotency.service.ts) and the repository
// (idempotency.repository.ts). Routes import from here.
export { IdempotencyKeyHeaders, idempotencyKeyOf, sendStored } from './idempotency-http.js';
export { createIdempotencyService, type IdempotencyService } from './idempotency.service.js';
