// Export deliveries are handed out per destination, oldest due first (issue 19, decision 0058): one
// index answers "the destination's next due delivery" and "has this destination anything due"
// without sorting or reading the destination's delivered history; another finds what left retention.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('export_deliveries_due_idx')
    .on('export_deliveries')
    .columns(['destination_id', 'status', 'next_attempt_at', 'id'])
    .execute();
  // The (destination_id, status) index is a prefix of the new one.
  await db.schema.dropIndex('export_deliveries_status_idx').execute();
  // The scheduler's expiry (every 2 s) reads deliveries whose newest event left retention: only
  // those not yet expired, so the index does not grow with expired history. The query repeats this
  // predicate word for word (SQLite uses a partial index only for a WHERE that names its terms).
  await db.schema
    .createIndex('export_deliveries_expiry_idx')
    .on('export_deliveries')
    .column('last_event_at')
    .where(sql.ref('status'), 'in', sql`('pending', 'failed', 'delivered')`)
    .execute();
}
