import type { Executor } from '../../../db/transaction.js';
import type { ChangesTable, JournalTables } from './journal.table.js';
import type { JournalEntry, NewJournalEntry } from './journal.model.js';
import { newId, nowIso } from '../../../platform/ids.js';
import { ownTables } from '../../../db/owned-tables.js';

const own = ownTables<JournalTables>();

export interface JournalFilter {
  appId: string;
  id?: string;
  env?: string;
  operation?: string;
  source?: string;
  resourceType?: string;
  resourceId?: string;
  authorityType?: string;
  userId?: string;
  keyFingerprint?: string;
  from?: string;
  to?: string;
  /** Exclusive upper bound on id, for cursor pagination (ids are time-ordered). */
  beforeId?: string;
  limit: number;
}

function toEntry(row: ChangesTable): JournalEntry {
  return {
    id: row.id,
    appId: row.app_id,
    env: row.env,
    operation: row.operation,
    source: row.source as JournalEntry['source'],
    resourceType: row.resource_type,
    resourceId: row.resource_id,
    authority: {
      type: row.authority_type as JournalEntry['authority']['type'],
      ...(row.user_id ? { userId: row.user_id } : {}),
      ...(row.key_fingerprint ? { keyFingerprint: row.key_fingerprint } : {}),
    },
    beforeVersion: row.before_version,
    afterVersion: row.after_version,
    diff: JSON.parse(row.diff),
    ...(row.context ? { context: JSON.parse(row.context) as Record<string, unknown> } : {}),
    createdAt: row.created_at,
  };
}

export async function insertEntry(db: Executor, entry: NewJournalEntry): Promise<JournalEntry> {
  const row: ChangesTable = {
    id: newId('chg'),
    app_id: entry.appId,
    env: entry.env,
    operation: entry.operation,
    source: entry.source,
    resource_type: entry.resourceType,
    resource_id: entry.resourceId,
    authority_type: entry.authority.type,
    user_id: entry.authority.userId ?? null,
    key_fingerprint: entry.authority.keyFingerprint ?? null,
    before_version: entry.beforeVersion,
    after_version: entry.afterVersion,
    diff: JSON.stringify(entry.diff),
    context: entry.context ? JSON.stringify(entry.context) : null,
    created_at: nowIso(),
  };
  await own(db).insertInto('changes').values(row).execute();
  return toEntry(row);
}

/** Equality filters: the query field and the column it matches. */
const EQUALITY_FILTERS = [
  ['id', 'id'],
  ['env', 'env'],
  ['operation', 'operation'],
  ['source', 'source'],
  ['resourceType', 'resource_type'],
  ['resourceId', 'resource_id'],
  ['authorityType', 'authority_type'],
  ['userId', 'user_id'],
  ['keyFingerprint', 'key_fingerprint'],
] as const satisfies readonly (readonly [keyof JournalFilter, keyof ChangesTable])[];

export async function listEntries(db: Executor, f: JournalFilter): Promise<JournalEntry[]> {
  let q = own(db).selectFrom('changes').selectAll().where('app_id', '=', f.appId);
  for (const [field, column] of EQUALITY_FILTERS) {
    const value = f[field];
    if (value) q = q.where(column, '=', value);
  }
  if (f.from) q = q.where('created_at', '>=', f.from);
  if (f.to) q = q.where('created_at', '<=', f.to);
  if (f.beforeId) q = q.where('id', '<', f.beforeId);
  const rows = await q.orderBy('id', 'desc').limit(f.limit).execute();
  return rows.map(toEntry);
}
