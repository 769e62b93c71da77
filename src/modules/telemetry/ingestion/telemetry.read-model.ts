// What other modules may read of telemetry (decision 0052), in the module's own shapes (redacted
// events, canonical events, rollup rows, experiment events), never its tables: insights read rollups
// and redacted events, raw exports the event feed, experiments their assignments and outcomes,
// erasure a subject's iterations. Each function takes the caller's executor, so a read joins the
// caller's transaction.
import { eventsAfter, eventsByIds, eventsCommittedAfter, feedStart } from './event-feed.js';
import { iterationAssignments, iterationsOfSubject, outcomeEvents } from './experiment-events.js';
import { outcomeMoments } from './outcome-moments.js';
import {
  eraseSubjectEvents,
  purgeExpiredTombstones,
  subjectHashOf,
  writeTombstone,
} from './subject-erasure.repository.js';
import {
  countRollups,
  eventTimeOf,
  listEvents,
  redeemLegacyCursor,
  scanRollups,
  watermarkOf,
} from './insight-reads.repository.js';

export interface TelemetryReadModel {
  /** How far an environment's events have been ingested; null before its first event (insights, aggregation). */
  watermarkOf: typeof watermarkOf;
  /** How many rollup rows a scan would read: the insights cost ceiling. */
  countRollups: typeof countRollups;
  /** Visits the hourly rollup rows of a scan, with only the columns asked for (insights aggregates). */
  scanRollups: typeof scanRollups;
  /** Raw events of a window, newest first, redacted (insights event queries). */
  listEvents: typeof listEvents;
  /** The time of one event, for a legacy insights cursor naming it. */
  eventTimeOf: typeof eventTimeOf;
  /** Marks a legacy insights cursor used; false when it was used already. */
  redeemLegacyCursor: typeof redeemLegacyCursor;
  /** The commit position a new raw export starts from (its first event is the next one committed). */
  feedStart: typeof feedStart;
  /** Events committed after a position, in commit order (the live export feed). */
  eventsCommittedAfter: typeof eventsCommittedAfter;
  /** Events received after a position, in arrival order (export backfills of a past window). */
  eventsAfter: typeof eventsAfter;
  /** Events by id that still exist (redelivery of an export attempt). */
  eventsByIds: typeof eventsByIds;
  /** The sums an experiment baseline is computed from: units, sum and sum of squares of a metric's outcomes. */
  outcomeMoments: typeof outcomeMoments;
  /** An iteration's exposure events, paged in (ts, id) order (aggregation runs). */
  iterationAssignments: typeof iterationAssignments;
  /** Outcome events of the given metric keys, paged in (ts, id) order (aggregation runs). */
  outcomeEvents: typeof outcomeEvents;
  /** The experiment iterations a subject was exposed in (erasure marks their aggregates stale). */
  iterationsOfSubject: typeof iterationsOfSubject;
}

export const telemetryReadModel: TelemetryReadModel = {
  watermarkOf,
  countRollups,
  scanRollups,
  listEvents,
  eventTimeOf,
  redeemLegacyCursor,
  feedStart,
  eventsCommittedAfter,
  eventsAfter,
  eventsByIds,
  outcomeMoments,
  iterationAssignments,
  outcomeEvents,
  iterationsOfSubject,
};

/**
 * What the erasure module may do to telemetry: erase a subject's events (rebuilding the rollups they
 * touched) and keep the tombstones that make ingestion drop the subject's late events.
 */
export interface TelemetrySubjectErasure {
  /** The tombstone key of a subject in an environment (keyed with the server secret). */
  subjectHashOf: typeof subjectHashOf;
  writeTombstone: typeof writeTombstone;
  /** Deletes the subject's raw events and rebuilds the rollups they touched; the number deleted. */
  eraseSubjectEvents: typeof eraseSubjectEvents;
  /** Deletes the tombstones no event can outlive any more; the number deleted. */
  purgeExpiredTombstones: typeof purgeExpiredTombstones;
}

export const telemetrySubjectErasure: TelemetrySubjectErasure = {
  subjectHashOf,
  writeTombstone,
  eraseSubjectEvents,
  purgeExpiredTombstones,
};
