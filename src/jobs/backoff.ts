// The one retry-delay formula of the server: exponential in the attempt number, capped, with jitter
// so callers that failed together do not retry together. Each caller states its schedule as a
// policy: the jobs runner (1 s doubling to 1 h, equal jitter), webhook deliveries (30 s ×2.35 to 6 h,
// ±20 %, docs/exports), transactions retried after a serialization failure and migrations racing
// another process's (milliseconds).

export interface BackoffPolicy {
  /** Delay after the first failed attempt, before jitter. */
  baseMs: number;
  /** Upper bound of any delay. */
  maxMs: number;
  /** Growth per further failed attempt; default 2. */
  growth?: number;
  /**
   * How the delay is spread: 'equal' (the default) keeps half of it and draws the other half at
   * random, so the delay still grows; a number f draws it within ±f of itself (0: no jitter).
   */
  jitter?: 'equal' | number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1000, maxMs: 60 * 60 * 1000 };

/** Delay before attempt `failedAttempts + 1`; `random` is in [0, 1). */
export function retryDelayMs(
  failedAttempts: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  if (!(policy.baseMs > 0) || !(policy.maxMs >= policy.baseMs)) throw new Error('a backoff needs 0 < baseMs <= maxMs');
  const exponent = Math.max(0, failedAttempts - 1);
  // The power overflows to Infinity long after the cap applies; Math.min keeps the delay finite.
  const ceiling = Math.min(policy.maxMs, policy.baseMs * (policy.growth ?? 2) ** exponent);
  const jitter = policy.jitter ?? 'equal';
  const delay =
    jitter === 'equal' ? ceiling / 2 + (random() * ceiling) / 2 : ceiling * (1 - jitter + 2 * jitter * random());
  return Math.min(policy.maxMs, Math.round(delay));
}
