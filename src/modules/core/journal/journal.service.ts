import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import type { Executor } from '../../../db/transaction.js';
import { validationError } from '../../../platform/errors.js';
import { decodeCursor, encodeCursor } from '../../../platform/pagination.js';
import type { JournalEntry, NewJournalEntry } from './journal.model.js';
import { insertEntry, listEntries, type JournalFilter } from './journal.repository.js';

const CURSOR_PREFIX = 'jc1_';

export interface JournalQuery extends Omit<JournalFilter, 'beforeId' | 'limit'> {
  limit?: number;
  cursor?: string;
}

export interface JournalService {
  /** Appends an entry inside the caller's transaction, so the change and its record commit together. */
  record(trx: Executor, entry: NewJournalEntry): Promise<JournalEntry>;
  list(query: JournalQuery): Promise<{ changes: JournalEntry[]; nextCursor: string | null }>;
}

function utc(value: string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms))
    throw validationError(`${field} must be an RFC 3339 date-time.`, [
      { path: `querystring.${field}`, message: 'must be an RFC 3339 date-time' },
    ]);
  return new Date(ms).toISOString();
}

export function createJournalService(db: Kysely<Database>): JournalService {
  return {
    record: (trx, entry) => insertEntry(trx, entry),
    async list(query) {
      const limit = query.limit ?? 50;
      const from = utc(query.from, 'from');
      const to = utc(query.to, 'to');
      if (from && to && from > to)
        throw validationError('from must not be after to.', [
          { path: 'querystring.from', message: 'must not be after to' },
        ]);
      const rows = await listEntries(db, {
        ...query,
        from,
        to,
        beforeId: decodeCursor(CURSOR_PREFIX, query.cursor),
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      return {
        changes: page,
        nextCursor: rows.length > limit ? encodeCursor(CURSOR_PREFIX, page[page.length - 1]!.id) : null,
      };
    },
  };
}
