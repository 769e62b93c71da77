// Work each process does for itself on a timer, beside the leased jobs: flushing counters it holds in
// memory (key usage) and cheap idempotent upkeep. Leasing would be wrong for the first (another
// process cannot flush this one's memory) and buys nothing for the second. Timers are unref'd, so
// they never keep a process alive, and stop with the app.
import type { JobLogger } from './job-runner.js';

export class ProcessTasks {
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(private readonly log: Pick<JobLogger, 'warn'>) {}

  /** Runs `task` every `everyMs`; a failure is logged and the next tick tries again. */
  every(name: string, everyMs: number, task: () => Promise<unknown>): void {
    if (!(everyMs > 0)) throw new Error('a process task needs a positive interval');
    const timer = setInterval(() => {
      task().catch((err: unknown) =>
        this.log.warn({ err, task: name }, `process task ${name} failed; it runs again in ${everyMs} ms`),
      );
    }, everyMs);
    timer.unref();
    this.timers.push(timer);
  }

  stop(): void {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
  }
}
