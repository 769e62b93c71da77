// Storage owned by its module (decision 0052). Transactions span modules, so every function takes the
// one `Executor`; a repository sees it only through its own tables, so a query on another module's
// table does not compile. Another module's data is read through the read model its owner exports.
import type { Kysely } from 'kysely';
import type { Database } from './database.js';
import type { Executor } from './transaction.js';

/**
 * The executor as a module's repository sees it: `Tables` is the module's own `…Tables` interface
 * (from its `*.table.ts`), which must agree with the database's definition of those tables.
 *
 *   const own = ownTables<RolloutsTables>();
 *   own(trx).selectFrom('rollout_plans')…   // compiles
 *   own(trx).selectFrom('experiments')…     // does not: experiments are read through their read model
 */
export function ownTables<Tables extends Partial<Database>>(): (executor: Executor) => Kysely<Tables> {
  // Kysely<Database> holds every table of Tables with the same columns: only the view narrows.
  return (executor) => executor as unknown as Kysely<Tables>;
}
