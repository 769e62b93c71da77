// What other modules may read of apps and environments without a principal (background jobs that
// journal under an environment's slug): the one environment lookup they share, instead of each
// querying the environments table.
import { ownTables } from '../../../db/owned-tables.js';
import type { Executor } from '../../../db/transaction.js';
import type { AppsTables } from './apps.table.js';

const own = ownTables<AppsTables>();

/** The slug of an environment, read in `executor`; null when it no longer exists. */
export async function environmentSlugOf(executor: Executor, envId: string): Promise<string | null> {
  const row = await own(executor).selectFrom('environments').select('slug').where('id', '=', envId).executeTakeFirst();
  return row?.slug ?? null;
}

/** The slugs of environments by id, read in `executor`; ids that no longer exist are absent. */
export async function environmentSlugsOf(executor: Executor, envIds: readonly string[]): Promise<Map<string, string>> {
  if (envIds.length === 0) return new Map();
  const rows = await own(executor)
    .selectFrom('environments')
    .select(['id', 'slug'])
    .where('id', 'in', [...new Set(envIds)])
    .execute();
  return new Map(rows.map((r) => [r.id, r.slug]));
}
