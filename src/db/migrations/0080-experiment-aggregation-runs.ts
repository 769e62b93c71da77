// Aggregation runs of experiment iterations (issue 12): each run pins an aggregate (per-variant
// sufficient statistics, never anything per subject) at a telemetry watermark. Results read the
// newest succeeded run; recompute requests are idempotent by (experiment, idempotency key).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('experiment_aggregation_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('env_id', 'text', (c) => c.notNull())
    .addColumn('experiment_id', 'text', (c) => c.notNull())
    .addColumn('iteration_id', 'text', (c) => c.notNull())
    .addColumn('iteration_revision', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('cause', 'text', (c) => c.notNull())
    .addColumn('watermark_received_at', 'bigint')
    .addColumn('watermark_event_id', 'text')
    .addColumn('queued_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('diagnostics', 'text', (c) => c.notNull())
    .addColumn('remediation', 'text')
    .addColumn('aggregate', 'text')
    .addColumn('idempotency_key', 'text')
    .addColumn('request_hash', 'text')
    .execute();
  await db.schema
    .createIndex('experiment_aggregation_runs_iteration')
    .on('experiment_aggregation_runs')
    .columns(['experiment_id', 'iteration_id', 'state'])
    .execute();
  // A recompute key names one run per experiment; a concurrent duplicate loses the insert.
  await db.schema
    .createIndex('experiment_aggregation_runs_key')
    .on('experiment_aggregation_runs')
    .columns(['experiment_id', 'idempotency_key'])
    .unique()
    .execute();
}
