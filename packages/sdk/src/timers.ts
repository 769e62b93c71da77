// Timers that never keep a Node process alive (unref'd; browsers have no such notion), and the
// jitter that keeps many instances started together from polling in step.

export type Timer = ReturnType<typeof setTimeout>;

export function later(ms: number, run: () => void): Timer {
  const timer = setTimeout(run, ms);
  (timer as { unref?: () => void }).unref?.();
  return timer;
}

/** `ms` ± 10 %. */
export function jittered(ms: number): number {
  return Math.round(ms * (0.9 + Math.random() * 0.2));
}

/** Exponential backoff from 1 s to `maxMs`, with jitter: attempt 0 is 1 s. */
export function backoff(attempt: number, maxMs = 60_000): number {
  return jittered(Math.min(maxMs, 1000 * 2 ** Math.min(attempt, 16)));
}

/** Retry-After in milliseconds (seconds or an HTTP date), or undefined. */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null || header === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
