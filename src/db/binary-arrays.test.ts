// Binary arrays as PostgreSQL reads them: each type's edges (the property test of repeated inserts
// covers arbitrary rows), integers past 2^53, NaN and infinities, NULLs, the empty array, and values a
// column cannot hold refused in Node before anything is sent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { POSTGRES_URL } from '../../test/helpers/test-app.js';
import { binaryArray } from './binary-arrays.js';

test('values a column cannot hold are refused before anything is sent', () => {
  assert.throws(() => binaryArray('integer', [1.5]), TypeError);
  assert.throws(() => binaryArray('integer', [2 ** 31]), TypeError);
  assert.throws(() => binaryArray('bigint', [1.5]), TypeError);
  assert.throws(() => binaryArray('bigint', ['12abc']), TypeError);
  assert.throws(() => binaryArray('bigint', [2n ** 63n]), TypeError);
  assert.throws(() => binaryArray('double precision', ['1.5']), TypeError);
  assert.throws(() => binaryArray('text', [{ not: 'text' }]), TypeError);
  assert.throws(() => binaryArray('bytea', ['not bytes']), TypeError);
});

test('PostgreSQL reads every type back, NULLs and the empty array included', { skip: !POSTGRES_URL }, async (t) => {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  t.after(() => client.end());
  const echo = async (type: string, values: unknown[]) => {
    const { rows } = await client.query(`select $1::${type}[]::text as a`, [binaryArray(type as never, values)]);
    return rows[0].a as string;
  };
  assert.equal(
    await echo('text', ['a', '', null, '"{,}\\', 'NULL', 'Ωmega 𝄞']),
    '{a,"",NULL,"\\"{,}\\\\","NULL","Ωmega 𝄞"}',
  );
  assert.equal(await echo('text', []), '{}');
  assert.equal(
    await echo('bigint', [
      0,
      -1,
      Number.MAX_SAFE_INTEGER,
      Number.MIN_SAFE_INTEGER,
      2 ** 62,
      -(2n ** 63n),
      '9223372036854775807',
      null,
    ]),
    '{0,-1,9007199254740991,-9007199254740991,4611686018427387904,-9223372036854775808,9223372036854775807,NULL}',
  );
  assert.equal(await echo('integer', [0, -2_147_483_648, 2_147_483_647, null]), '{0,-2147483648,2147483647,NULL}');
  assert.equal(
    await echo('double precision', [0, -0, 5e-324, 1.7976931348623157e308, NaN, Infinity, -Infinity, 0.1]),
    '{0,-0,5e-324,1.7976931348623157e+308,NaN,Infinity,-Infinity,0.1}',
  );
  assert.equal(
    await echo('bytea', [Buffer.from([0, 255, 16]), new Uint8Array(0), null]),
    '{"\\\\x00ff10","\\\\x",NULL}',
  );
});
