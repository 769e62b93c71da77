// The one test clock: services take `now`, and tests move this instead of sleeping.

/** The instant tests start at unless they need another (2026-11-20T12:00:00Z). */
export const T0 = Date.UTC(2026, 10, 20, 12, 0, 0);

export interface TestClock {
  now(): number;
  /** Moves the clock forward by `ms` and answers the new time. */
  advance(ms: number): number;
  set(ms: number): void;
}

export function testClock(start = T0): TestClock {
  let t = start;
  return {
    now: () => t,
    advance: (ms) => (t += ms),
    set: (ms) => void (t = ms),
  };
}
