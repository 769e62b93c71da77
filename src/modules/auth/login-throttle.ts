// Repeated failed logins for one e-mail or one client address are refused for a while (429), so
// passwords cannot be guessed at speed. Per process: enough to slow guessing, no storage round trip.
const WINDOW_MS = 15 * 60 * 1000;
const MAX_PER_EMAIL = 5;
const MAX_PER_ADDRESS = 20;

interface Bucket {
  failures: number;
  resetAt: number;
}

export class LoginThrottle {
  private readonly buckets = new Map<string, Bucket>();
  constructor(private readonly now: () => number = Date.now) {}

  /** Seconds to wait if this e-mail or address is locked out, else 0. */
  retryAfter(email: string, address: string): number {
    const t = this.now();
    let wait = 0;
    for (const [key, max] of [[`e:${email}`, MAX_PER_EMAIL], [`a:${address}`, MAX_PER_ADDRESS]] as const) {
      const b = this.buckets.get(key);
      if (b && b.resetAt > t && b.failures >= max) wait = Math.max(wait, Math.ceil((b.resetAt - t) / 1000));
    }
    return wait;
  }

  recordFailure(email: string, address: string) {
    const t = this.now();
    for (const key of [`e:${email}`, `a:${address}`]) {
      const b = this.buckets.get(key);
      if (!b || b.resetAt <= t) this.buckets.set(key, { failures: 1, resetAt: t + WINDOW_MS });
      else b.failures++;
    }
    if (this.buckets.size > 100_000) this.prune(t);
  }

  recordSuccess(email: string) {
    this.buckets.delete(`e:${email}`);
  }

  private prune(t: number) {
    for (const [k, b] of this.buckets) if (b.resetAt <= t) this.buckets.delete(k);
  }
}
