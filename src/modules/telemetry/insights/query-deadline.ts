// Deadlines of the insight queries: the earlier of the body's deadlineAt and the X-Service-Deadline
// header, within a 10-second budget from arrival. Scans check it between pages; reaching it answers
// 408 query_deadline_exceeded with what the seed lists, and a cursor that resumes the query.
import { AppError } from '../../../platform/errors.js';

export const DEADLINE_BUDGET_MS = 10_000;

export interface Deadline {
  startedAt: number;
  at: number;
  now: () => number;
  /** Internal scan pages completed so far. */
  pages: number;
}

export function deadlineOf(now: () => number, bodyDeadline?: number, headerDeadline?: number): Deadline {
  const startedAt = now();
  const at = Math.min(startedAt + DEADLINE_BUDGET_MS, bodyDeadline ?? Infinity, headerDeadline ?? Infinity);
  return { startedAt, at, now, pages: 0 };
}

export const passed = (d: Deadline) => d.now() >= d.at;

export function execution(d: Deadline) {
  const t = d.now();
  return {
    deadline: new Date(d.at).toISOString(),
    elapsed: Math.max(0, t - d.startedAt),
    remaining: Math.max(0, d.at - t),
    pages: d.pages,
  };
}

export function deadlineExceeded(
  d: Deadline,
  input: { cursor: string; scannedField: 'scannedBuckets' | 'scannedEvents'; request: number; resumed: number },
): AppError {
  return new AppError(408, 'query_deadline_exceeded', 'The query reached its deadline before the page was complete.', {
    resolution: 'Send the same query with metadata.cursor (and a later deadline) to resume it.',
    metadata: {
      retryable: true,
      remediation:
        'Resume with the cursor within 15 minutes, give a later deadline (at most 10 seconds of budget), or narrow the window or filters.',
      cursor: input.cursor,
      execution: execution(d),
      partial: { state: 'scan_incomplete', rowsAvailable: false, [input.scannedField]: input.request + input.resumed },
      queryCost: { request: input.request, resumed: input.resumed, cumulative: input.request + input.resumed },
    },
  });
}
