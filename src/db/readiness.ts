// Readiness (/readyz): whether the database answers a trivial query now. Any failure means "not
// ready": the probe reports the state, and the connection-fault log (create-db.ts) says why.
import { sql, type Kysely } from 'kysely';
import type { Database } from './database.js';

export function databaseReadiness(db: Kysely<Database>): () => Promise<boolean> {
  return async () => {
    try {
      await sql`select 1`.execute(db);
      return true;
    } catch {
      return false;
    }
  };
}
