// One place that opens transactions, retrying the ones PostgreSQL aborts for serialization reasons.
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './database.js';
import { retryDelayMs } from '../jobs/backoff.js';
import { isRetryableTransactionError } from './constraint-errors.js';

export type Executor = Kysely<Database> | Transaction<Database>;

/** Serialization failures clear in milliseconds; jitter keeps the retrying transactions apart. */
const SERIALIZATION_RETRY = { baseMs: 10, maxMs: 80 };

export async function inTransaction<T>(
  db: Kysely<Database>,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (err) {
      if (attempt >= 5 || !isRetryableTransactionError(err)) throw err;
      await new Promise((r) => setTimeout(r, retryDelayMs(attempt, SERIALIZATION_RETRY)));
    }
  }
}
