// Repeated inserts on both engines: any text (quotes, backslashes, braces, commas, the word NULL,
// non-Latin-1, astral), nulls, the edges of doubles, bigints and integers, and bytes come back as
// they went in, whether the rows travel as VALUES (SQLite) or as arrays through unnest (PostgreSQL);
// ON CONFLICT and RETURNING keep the first of two rows with one key, as VALUES did; a column holding
// one value in every row (bound once, as a scalar, on PostgreSQL) and a single row come back too.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { sql, type Kysely } from 'kysely';
import { dialects, testDatabase } from '../../test/helpers/test-app.js';
import { repeatedInsert } from './repeated-inserts.js';

interface ProbeRow {
  k: string;
  t: string | null;
  b: number | null;
  i: number | null;
  d: number | null;
  y: Buffer | null;
}
const COLUMNS = ['k', 't', 'b', 'i', 'd', 'y'] as const;

const insertProbes = repeatedInsert<ProbeRow, { k: string; t: string | null }>(
  COLUMNS,
  { k: 'text', t: 'text', b: 'bigint', i: 'integer', d: 'double precision', y: 'bytea' },
  (executor, withRows) =>
    withRows((executor as unknown as Kysely<{ probe: ProbeRow }>).insertInto('probe'))
      .onConflict((oc) => oc.column('k').doNothing())
      .returning(['k', 't']),
);

// Text as every engine stores it: no U+0000 (PostgreSQL refuses it; ingestion refuses it first), and
// no lone surrogates (UTF-8 cannot carry them).
const text = fc
  .oneof(
    fc.string({ unit: 'binary' }),
    fc.constantFrom('', 'NULL', 'null', '"', '\\', '{}', '{a,b}', ',', '\\"', ' ', 'Ωmega ✓ 𝄞'),
  )
  .filter((s) => !s.includes('\u0000') && !/\p{Cs}/u.test(s));
const double = fc
  .oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(5e-324, 1.7976931348623157e308))
  .map((x) => (x === 0 ? 0 : x)); // -0 is 0 once stored
const row = fc.record({
  t: fc.option(text),
  b: fc.option(fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }).map((n) => n)),
  i: fc.option(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })),
  d: fc.option(double),
  y: fc.option(fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a))),
});
/** Columns given one value in every row of an insert (any of them, none or all). */
const shared = row.chain((one) =>
  fc.subarray(['t', 'b', 'i', 'd', 'y'] as const).map((names) => Object.fromEntries(names.map((n) => [n, one[n]]))),
);

for (const dialect of dialects) {
  describe(`repeated inserts on ${dialect}`, () => {
    test('every value comes back as it went in, and a key seen twice keeps its first row', async (t) => {
      const database = await testDatabase(t, dialect);
      const db = database.handle.db as unknown as Kysely<{ probe: ProbeRow }>;
      const blob = dialect === 'postgres' ? sql`bytea` : sql`blob`;
      await sql`create table probe (k text primary key, t text, b bigint, i integer, d double precision, y ${blob})`.execute(
        db,
      );
      let serial = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(row, { minLength: 1, maxLength: 30 }),
          shared,
          fc.boolean(),
          async (values, same, alone) => {
            const rows = values.slice(0, alone ? 1 : undefined).map((v) => ({ k: `k${serial++}`, ...v, ...same }));
            // The first row's key once more, after it: ON CONFLICT skips the second.
            const twice = { ...rows[0]!, t: 'the second of one key' };
            const result = await insertProbes(database.handle.db, alone ? rows : [...rows, twice]);
            assert.deepEqual(
              result.rows.map((r) => r.k),
              rows.map((r) => r.k),
            );
            const stored = await db
              .selectFrom('probe')
              .selectAll()
              .where(
                'k',
                'in',
                rows.map((r) => r.k),
              )
              .execute();
            const byKey = new Map(stored.map((r) => [r.k, r]));
            for (const expected of rows) {
              const got = byKey.get(expected.k)!;
              assert.equal(got.t, expected.t);
              assert.equal(got.b === null ? null : Number(got.b), expected.b);
              assert.equal(got.i, expected.i);
              assert.equal(got.d, expected.d);
              assert.deepEqual(got.y === null ? null : Buffer.from(got.y), expected.y);
            }
          },
        ),
        { numRuns: 100 },
      );
    });
  });
}
