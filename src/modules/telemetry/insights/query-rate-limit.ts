// Per-credential query rate (operator setting, default 60 a minute): a fixed one-minute window per
// credential, charged for every query that passes authentication, including those that then end
// with 408. Per process, like the telemetry bucket.
import { AppError } from '../../../platform/errors.js';

export interface RateLimitState {
  limit: number;
  remaining: number;
  resetAt: number;
}

export interface QueryRateLimiter {
  /** Charges one query; throws 429 rate_limited when the window is used up. */
  charge(credential: string): RateLimitState;
}

const WINDOW_MS = 60_000;

export function createQueryRateLimiter(limit: number, now: () => number): QueryRateLimiter {
  const windows = new Map<string, { start: number; used: number }>();
  return {
    charge(credential) {
      const t = now();
      let w = windows.get(credential);
      if (!w || t >= w.start + WINDOW_MS) {
        // Windows of idle credentials are dropped as new ones start, so the map stays small.
        if (windows.size > 10_000) for (const [k, v] of windows) if (t >= v.start + WINDOW_MS) windows.delete(k);
        w = { start: t, used: 0 };
        windows.set(credential, w);
      }
      const resetAt = w.start + WINDOW_MS;
      if (w.used >= limit) {
        const state = { limit, remaining: 0, resetAt: new Date(resetAt).toISOString() };
        throw new AppError(
          429,
          'rate_limited',
          `This credential has used its ${limit} insight queries of this minute.`,
          {
            metadata: { rateLimit: state },
            headers: { 'retry-after': String(Math.max(1, Math.ceil((resetAt - t) / 1000))) },
          },
        );
      }
      w.used++;
      return { limit, remaining: limit - w.used, resetAt };
    },
  };
}
