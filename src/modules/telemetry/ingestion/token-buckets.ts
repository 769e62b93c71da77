// Token buckets keyed by name (one per environment): `rate` tokens a second, at most one second's
// worth held. Per process: several processes in front of one database each admit up to the rate.
export interface TokenBuckets {
  /** Takes up to `wanted` tokens; returns how many were granted and, when short, when enough to
   * cover the rest will have accrued. */
  take(key: string, wanted: number): { granted: number; retryAfterSeconds: number };
}

export function createTokenBuckets(rate: number, now: () => number): TokenBuckets {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(key, wanted) {
      const t = now();
      let bucket = buckets.get(key);
      if (!bucket) {
        bucket = { tokens: rate, at: t };
        buckets.set(key, bucket);
      }
      bucket.tokens = Math.min(rate, bucket.tokens + ((t - bucket.at) / 1000) * rate);
      bucket.at = t;
      const granted = Math.max(0, Math.min(wanted, Math.floor(bucket.tokens)));
      bucket.tokens -= granted;
      const missing = wanted - granted;
      return { granted, retryAfterSeconds: missing > 0 ? Math.max(1, Math.ceil((missing - bucket.tokens) / rate)) : 0 };
    },
  };
}
