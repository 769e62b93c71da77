// Kysely queries of subject erasures: the module's own table only (db/owned-tables.ts).
import { ownTables } from '../../../db/owned-tables.js';
import type { Executor } from '../../../db/transaction.js';
import type { ErasureTables, SubjectErasuresTable } from './erasure.table.js';

const own = ownTables<ErasureTables>();

export type ErasureRow = SubjectErasuresTable;

export async function insertErasure(trx: Executor, row: ErasureRow): Promise<void> {
  await own(trx).insertInto('subject_erasures').values(row).execute();
}

/** An erasure of the environment (what a receipt shows). */
export async function findReceipt(executor: Executor, envId: string, id: string) {
  return own(executor)
    .selectFrom('subject_erasures')
    .select(['id', 'status', 'requested_at', 'completed_at', 'cutoff'])
    .where('env_id', '=', envId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function findErasure(executor: Executor, id: string): Promise<ErasureRow | undefined> {
  return own(executor).selectFrom('subject_erasures').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Marks the erasure completed and forgets its sealed subject. */
export async function completeErasure(trx: Executor, id: string, completedAt: string): Promise<void> {
  await own(trx)
    .updateTable('subject_erasures')
    .set({ status: 'completed', completed_at: completedAt, subject_sealed: null })
    .where('id', '=', id)
    .execute();
}
