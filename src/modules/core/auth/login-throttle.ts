// Repeated failed logins for one e-mail or one client address are refused for a while (429), so
// passwords cannot be guessed at speed. The counts live in the database, so several processes on
// one PostgreSQL share one limit instead of allowing N times the attempts.
import { createHash } from 'node:crypto';
import type { Executor } from '../../../db/transaction.js';
import * as repo from './auth.repository.js';

const WINDOW_MS = 15 * 60 * 1000;
const MAX_PER_EMAIL = 5;
const MAX_PER_ADDRESS = 20;

/** The table keeps hashes, not the e-mails and addresses of failed attempts. */
const keyOf = (kind: 'e' | 'a', value: string) => createHash('sha256').update(`${kind}:${value}`).digest('hex');

export class LoginThrottle {
  constructor(
    private readonly db: Executor,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds to wait if this e-mail or address is locked out, else 0. */
  async retryAfter(email: string, address: string): Promise<number> {
    const t = this.now();
    const limits = new Map([
      [keyOf('e', email), MAX_PER_EMAIL],
      [keyOf('a', address), MAX_PER_ADDRESS],
    ]);
    let wait = 0;
    for (const window of await repo.readLoginFailures(this.db, [...limits.keys()], t)) {
      if (window.failures >= limits.get(window.key)!) wait = Math.max(wait, Math.ceil((window.resetAt - t) / 1000));
    }
    return wait;
  }

  async recordFailure(email: string, address: string): Promise<void> {
    const t = this.now();
    await repo.addLoginFailures(this.db, [keyOf('e', email), keyOf('a', address)], t, WINDOW_MS);
    // Ended windows are dropped here (failures are rare next to requests), so the table stays small.
    await repo.deleteEndedLoginFailures(this.db, t);
  }

  async recordSuccess(email: string): Promise<void> {
    await repo.clearLoginFailures(this.db, keyOf('e', email));
  }
}
