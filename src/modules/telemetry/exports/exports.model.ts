// Raw telemetry export destinations as the domain sees them (issue 13). The signing secret never
// appears here: it is sealed in storage and shown once, on create and on rotate.
import type { EventKind } from '../ingestion/index.js';

export const DESTINATION_STATUSES = ['active', 'paused', 'disabled'] as const;
export type DestinationStatus = (typeof DESTINATION_STATUSES)[number];

/** After a rotation deliveries are signed with the old and the new secret for this long. */
export const DUAL_SIGNING_MS = 24 * 3_600_000;
export const DEFAULT_BATCH_SIZE = 500;
/** The recurring job that reads the feed into deliveries and hands due deliveries to workers. */
export const SCHEDULE_JOB = 'exports.schedule';

export interface DestinationFilters {
  flagKeys?: string[];
  experimentIds?: string[];
}

export interface DestinationFields {
  name: string;
  url: string;
  kinds: EventKind[];
  filters: DestinationFilters;
  batchSize: number;
  status: DestinationStatus;
}

export interface Destination extends DestinationFields {
  id: string;
  appId: string;
  env: string;
  version: number;
  secretVersion: number;
  createdAt: string;
  updatedAt: string;
}

export interface DestinationHealth {
  lastAttemptAt: string | null;
  lastSuccessAt: string | null;
  consecutiveFailures: number;
  lastError: { status: number | null; code: string; message: string } | null;
  backlog: number;
  oldestPendingAt: string | null;
}
