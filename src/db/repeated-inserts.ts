// Multi-row inserts that a hot path repeats with the same shape (ingestion writes up to 100 rows of
// 17 values per statement, many times a second). Building Kysely's query tree for every value and
// compiling it cost more than SQLite's own work on the rows, so the statement is compiled by Kysely
// once per (dialect, row count) from rows of nulls, and later calls only bind new parameters. The SQL
// text still comes from Kysely's query builder: nothing here is assembled from strings.
import { CompiledQuery, type Compilable, type QueryResult } from 'kysely';
import { dialectOf } from './dialect.js';
import type { Executor } from './transaction.js';

export type RepeatedInsert<R, O> = (executor: Executor, rows: readonly R[]) => Promise<QueryResult<O>>;

/**
 * `build` makes the insert for the given rows with Kysely; it is called with rows whose every
 * column is null, in `columns` order, so the compiled parameters are the rows' values in that order.
 * Rows passed later must carry every column (null, never undefined).
 */
export function repeatedInsert<R extends object, O = never>(
  columns: readonly (keyof R & string)[],
  build: (executor: Executor, rows: R[]) => Compilable<O>,
): RepeatedInsert<R, O> {
  const texts = new Map<string, string>();
  return (executor, rows) => {
    const key = `${dialectOf(executor)}:${rows.length}`;
    let text = texts.get(key);
    if (text === undefined) {
      const template = rows.map(() => Object.fromEntries(columns.map((c) => [c, null])) as R);
      const compiled = build(executor, template).compile();
      if (compiled.parameters.length !== rows.length * columns.length)
        throw new Error('a repeated insert must bind one parameter per column of every row');
      text = compiled.sql;
      texts.set(key, text);
    }
    const parameters: unknown[] = new Array(rows.length * columns.length);
    let i = 0;
    for (const row of rows) for (const column of columns) parameters[i++] = row[column];
    return executor.executeQuery<O>(CompiledQuery.raw(text, parameters));
  };
}
