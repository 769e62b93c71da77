// The one way tests wait for something another process, thread or timer makes true: poll a check
// with a deadline, and fail naming what never happened. Background work inside one app is drained
// explicitly instead (app.jobs.drain(), app.configSyncs.flush()); this is for what cannot be.
import assert from 'node:assert/strict';

export interface WaitOptions {
  /** Pause between checks. */
  intervalMs?: number;
  /** What was awaited, for the failure message. */
  what?: string;
}

/** Polls `check` until it holds; fails after `timeoutMs`. Answers how long it took. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
  options: WaitOptions = {},
): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    const elapsed = Date.now() - started;
    if (elapsed >= timeoutMs) assert.fail(`${options.what ?? 'the condition'} did not hold within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 20));
  }
  return Date.now() - started;
}
