import type { Executor } from '../../../db/transaction.js';
import type { AppsTable, EnvironmentsTable, AppsTables } from './apps.table.js';
import type { App, Environment } from './apps.model.js';
import { ownTables } from '../../../db/owned-tables.js';

const own = ownTables<AppsTables>();

export const toApp = (r: AppsTable): App => ({ id: r.id, name: r.name, slug: r.slug, createdAt: r.created_at });
export const toEnvironment = (r: EnvironmentsTable): Environment => ({
  id: r.id,
  appId: r.app_id,
  slug: r.slug,
  name: r.name,
  createdAt: r.created_at,
  policy: { requiredApprovals: Number(r.required_approvals ?? 0) },
});

export async function findApp(db: Executor, id: string): Promise<AppsTable | undefined> {
  return own(db).selectFrom('apps').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findEnvironment(
  db: Executor,
  appId: string,
  slug: string,
): Promise<EnvironmentsTable | undefined> {
  return own(db)
    .selectFrom('environments')
    .selectAll()
    .where('app_id', '=', appId)
    .where('slug', '=', slug)
    .executeTakeFirst();
}

export async function setRequiredApprovals(db: Executor, envId: string, requiredApprovals: number): Promise<void> {
  await own(db)
    .updateTable('environments')
    .set({ required_approvals: requiredApprovals })
    .where('id', '=', envId)
    .execute();
}

export async function requiredApprovalsOf(db: Executor, envId: string): Promise<number> {
  const row = await own(db)
    .selectFrom('environments')
    .select('required_approvals')
    .where('id', '=', envId)
    .executeTakeFirst();
  return Number(row?.required_approvals ?? 0);
}

export async function listEnvironments(db: Executor, appIds: string[]): Promise<EnvironmentsTable[]> {
  if (appIds.length === 0) return [];
  return own(db)
    .selectFrom('environments')
    .selectAll()
    .where('app_id', 'in', appIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function countAppsOfOwner(db: Executor, ownerUserId: string): Promise<number> {
  const row = await own(db)
    .selectFrom('apps')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('owner_user_id', '=', ownerUserId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertApp(db: Executor, row: AppsTable): Promise<void> {
  await own(db).insertInto('apps').values(row).execute();
}

export async function insertEnvironment(db: Executor, row: EnvironmentsTable): Promise<void> {
  await own(db).insertInto('environments').values(row).execute();
}
