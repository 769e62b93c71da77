// Foundation: users and login tokens, apps and environments, keys, the change journal and
// idempotency records. Timestamps are RFC 3339 UTC text (sortable on both engines), JSON is text.
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('cli_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('scope', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();

  await db.schema
    .createTable('apps')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('apps_owner_slug_unique', ['owner_user_id', 'slug'])
    .execute();

  await db.schema
    .createTable('environments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id'))
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('environments_app_slug_unique', ['app_id', 'slug'])
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id'))
    .addColumn('env_id', 'text', (c) => c.references('environments.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_app_idx').on('api_keys').columns(['app_id', 'created_at']).execute();

  await db.schema
    .createTable('changes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('env', 'text')
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text')
    .addColumn('authority_type', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('key_fingerprint', 'text')
    .addColumn('before_version', 'integer')
    .addColumn('after_version', 'integer')
    .addColumn('diff', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // Ids are ULIDs, so (app_id, id) orders newest first without a separate sequence.
  await db.schema.createIndex('changes_app_id_idx').on('changes').columns(['app_id', 'id']).execute();

  await db.schema
    .createTable('idempotency_records')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('idem_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer', (c) => c.notNull())
    .addColumn('response_body', 'text')
    .addColumn('encrypted', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('replay_expires_at', 'text')
    .addPrimaryKeyConstraint('idempotency_records_pk', ['scope', 'idem_key'])
    .execute();
  await db.schema.createIndex('idempotency_expiry_idx').on('idempotency_records').column('expires_at').execute();

  await protectJournal(db);
}

/** The journal is append-only: the database itself refuses UPDATE and DELETE on it. */
async function protectJournal(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    await sql`CREATE OR REPLACE FUNCTION ensign_journal_append_only() RETURNS trigger AS $$
      BEGIN RAISE EXCEPTION 'the change journal is append-only'; END; $$ LANGUAGE plpgsql`.execute(db);
    await sql`CREATE TRIGGER changes_no_update BEFORE UPDATE OR DELETE ON changes
      FOR EACH ROW EXECUTE FUNCTION ensign_journal_append_only()`.execute(db);
    await sql`CREATE TRIGGER changes_no_truncate BEFORE TRUNCATE ON changes
      FOR EACH STATEMENT EXECUTE FUNCTION ensign_journal_append_only()`.execute(db);
    return;
  }
  await sql`CREATE TRIGGER changes_no_update BEFORE UPDATE ON changes
    BEGIN SELECT RAISE(ABORT, 'the change journal is append-only'); END`.execute(db);
  await sql`CREATE TRIGGER changes_no_delete BEFORE DELETE ON changes
    BEGIN SELECT RAISE(ABORT, 'the change journal is append-only'); END`.execute(db);
}
