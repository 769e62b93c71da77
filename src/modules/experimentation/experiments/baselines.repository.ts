// Captured baselines of an experiment's primary metric, numbered 1, 2, … per experiment.
import { ownTables } from '../../../db/owned-tables.js';
import type { Executor } from '../../../db/transaction.js';
import type { BaselinesTables, ExperimentBaselinesTable } from './baselines.table.js';

const own = ownTables<BaselinesTables>();

/** The highest version of the experiment's baselines, 0 when it has none. */
export async function lastBaselineVersion(db: Executor, experimentId: string): Promise<number> {
  const last = await own(db)
    .selectFrom('experiment_baselines')
    .select((eb) => eb.fn.max<number>('version').as('v'))
    .where('experiment_id', '=', experimentId)
    .executeTakeFirst();
  return Number(last?.v ?? 0);
}

export async function insertBaseline(db: Executor, row: ExperimentBaselinesTable): Promise<void> {
  await own(db).insertInto('experiment_baselines').values(row).execute();
}

/** The experiment's 100 newest baselines, newest first. */
export async function listBaselines(
  db: Executor,
  envId: string,
  experimentId: string,
): Promise<ExperimentBaselinesTable[]> {
  return own(db)
    .selectFrom('experiment_baselines')
    .selectAll()
    .where('env_id', '=', envId)
    .where('experiment_id', '=', experimentId)
    .orderBy('version', 'desc')
    .limit(100)
    .execute();
}

export async function findBaseline(
  db: Executor,
  envId: string,
  id: string,
): Promise<ExperimentBaselinesTable | undefined> {
  return own(db)
    .selectFrom('experiment_baselines')
    .selectAll()
    .where('env_id', '=', envId)
    .where('id', '=', id)
    .executeTakeFirst();
}
