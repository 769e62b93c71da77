// Multi-row inserts that a hot path repeats with the same shape (ingestion writes up to 100 rows of
// 19 values per statement, many times a second). Building Kysely's query tree for every value and
// compiling it cost more than the database's own work on the rows, so the statement is compiled by
// Kysely once and later calls only bind new parameters. The SQL text still comes from Kysely's query
// builder, with the column types below as the only constant text: nothing is assembled from data.
//
// How the rows reach the statement depends on the engine (decision 0061):
// - SQLite: `VALUES (…), (…)`, one parameter per value, compiled once per row count;
// - PostgreSQL: one array per column, `SELECT … FROM unnest($1::text[], $2::bigint[], …)`, one
//   statement for every row count; a column holding one value in every row is bound once, as a scalar,
//   and the arrays travel in PostgreSQL's binary format (binary-arrays.ts, decision 0063). A VALUES list of 100 rows × 19 values is 1,900 parameters to
//   bind and a 100-row VALUES node to parse and plan on every call: measured on the event table, the
//   server spent 49 µs per row that way and 20 µs through unnest, and Node 12–18 µs against 8–11.
import {
  CompiledQuery,
  sql,
  type Compilable,
  type InsertQueryBuilder,
  type QueryResult,
  type RawBuilder,
} from 'kysely';
import { binaryArray, type PostgresColumnType } from './binary-arrays.js';
import { dialectOf } from './dialect.js';
import type { Executor } from './transaction.js';

export type RepeatedInsert<R, O> = (executor: Executor, rows: readonly R[]) => Promise<QueryResult<O>>;

/** PostgreSQL types of the columns, as their arrays are cast in unnest (constants of our code). */
export type PostgresColumnTypes<R> = { readonly [K in keyof R & string]?: PostgresColumnType };
export type { PostgresColumnType };

/** Puts the rows into an insert: VALUES, or unnest on PostgreSQL. */
export type WithRows = <Q extends InsertQueryBuilder<any, any, any>>(insert: Q) => Q;

/**
 * `build` makes the insert with Kysely, calling `withRows` on `insertInto(table)` before anything
 * else (ON CONFLICT, RETURNING). It is called once per compiled shape with placeholder rows, so the
 * compiled parameters are the rows' values in `columns` order (SQLite) or one array per column
 * (PostgreSQL). Rows passed later must carry every column (null, never undefined).
 */
export function repeatedInsert<R extends object, O = never>(
  columns: readonly (keyof R & string)[],
  postgresTypes: PostgresColumnTypes<R>,
  build: (executor: Executor, withRows: WithRows) => Compilable<O>,
): RepeatedInsert<R, O> {
  const texts = new Map<string, string>();
  const columnTypes = columns.map((column) => {
    const type = postgresTypes[column];
    if (type === undefined) throw new Error(`repeated insert: no PostgreSQL type for column ${column}`);
    return type;
  });
  const types = columnTypes.map((type) => sql.raw(type));
  return (executor, rows) => {
    const postgres = dialectOf(executor) === 'postgres';
    const shared = postgres ? sharedColumns(rows, columns) : null;
    const key = shared !== null ? `postgres:${shared.map(Number).join('')}` : `sqlite:${rows.length}`;
    let text = texts.get(key);
    if (text === undefined) {
      const withRows: WithRows =
        shared !== null
          ? (insert) => insert.columns(columns as never).expression(unnestOf(types, shared)) as never
          : (insert) => insert.values(rows.map(() => Object.fromEntries(columns.map((c) => [c, null])))) as never;
      const compiled = build(executor, withRows).compile();
      if (compiled.parameters.length !== (postgres ? columns.length : rows.length * columns.length))
        throw new Error('a repeated insert must bind its rows and nothing else');
      text = compiled.sql;
      // At most 2^columns shapes on PostgreSQL, in practice a handful: the cache is bounded anyway.
      if (texts.size >= MAX_SHAPES) texts.clear();
      texts.set(key, text);
    }
    return executor.executeQuery<O>(
      CompiledQuery.raw(text, shared !== null ? byColumn(rows, columns, columnTypes, shared) : byRow(rows, columns)),
    );
  };
}

/** Statement texts a repeated insert keeps (one per row count on SQLite, per shared-column set on PostgreSQL). */
const MAX_SHAPES = 128;

/**
 * PostgreSQL: which columns hold one value in every row, bound once as a scalar instead of an array
 * repeating it (an event row's environment, app and arrival time, and the columns that are null in
 * every row, were 46 % of the array text of a group of the bench's events). The first
 * column always travels as an array: unnest needs one to give the statement its rows.
 */
function sharedColumns<R>(rows: readonly R[], columns: readonly (keyof R)[]): boolean[] {
  return columns.map((column, c) => {
    if (c === 0 || rows.length === 0) return false;
    const first = rows[0]![column];
    // Strings, numbers, null: compared by value; a Buffer only equals itself, so travels as an array.
    for (let i = 1; i < rows.length; i++) if (rows[i]![column] !== first) return false;
    return true;
  });
}

/** `select u.c0, $1::text, u.c2, … from unnest($2::text[], $3::bigint[], …) as u(c0, c2, …)`: shared columns as cast scalars. */
function unnestOf(types: RawBuilder<unknown>[], shared: boolean[]) {
  const selected = types.map((type, c) => (shared[c] ? sql`${null}::${type}` : sql`u.${sql.ref(`c${c}`)}`));
  const arrays = types.flatMap((type, c) => (shared[c] ? [] : [sql`${null}::${type}[]`]));
  const names = types.flatMap((_, c) => (shared[c] ? [] : [sql.ref(`c${c}`)]));
  return sql`select ${sql.join(selected)} from unnest(${sql.join(arrays)}) as u(${sql.join(names)})`;
}

function byRow<R>(rows: readonly R[], columns: readonly (keyof R)[]): unknown[] {
  const parameters: unknown[] = new Array(rows.length * columns.length);
  let i = 0;
  for (const row of rows) for (const column of columns) parameters[i++] = row[column];
  return parameters;
}

/** One parameter per column, in the order unnestOf places them: its shared value, or a binary array. */
function byColumn<R>(
  rows: readonly R[],
  columns: readonly (keyof R)[],
  types: readonly PostgresColumnType[],
  shared: boolean[],
): unknown[] {
  const scalars: unknown[] = [];
  const arrays: unknown[] = [];
  columns.forEach((column, c) => {
    if (shared[c]) return scalars.push(rows[0]![column]);
    const values: unknown[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) values[i] = rows[i]![column];
    arrays.push(binaryArray(types[c]!, values));
  });
  return [...scalars, ...arrays];
}
