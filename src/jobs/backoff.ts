// Retry delays: exponential in the attempt number, capped, with "equal jitter" (half fixed, half
// random) so runners that failed together do not retry together, yet the delay still grows.

export interface BackoffPolicy {
  /** Delay after the first failed attempt, before jitter. */
  baseMs: number;
  /** Upper bound of any delay. */
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1000, maxMs: 60 * 60 * 1000 };

/** Delay before attempt `failedAttempts + 1`; `random` is in [0, 1). */
export function retryDelayMs(failedAttempts: number, policy: BackoffPolicy, random: () => number): number {
  const exponent = Math.max(0, failedAttempts - 1);
  // 2^exponent overflows to Infinity long after the cap applies; Math.min keeps it finite.
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(exponent, 52));
  const half = ceiling / 2;
  return Math.round(half + random() * half);
}
