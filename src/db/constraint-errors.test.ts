// Which database failures are "storage unavailable, retry" (a 503) and which are defects (a 500).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isStorageUnavailable } from './constraint-errors.js';

test('unreachable, busy or overloaded storage is unavailable; anything else is not', () => {
  const coded = (code: string) => Object.assign(new Error(code), { code });
  for (const err of [
    coded('ECONNREFUSED'),
    coded('57P01'),
    coded('53300'),
    coded('SQLITE_BUSY'),
    coded('SQLITE_IOERR_WRITE'),
    coded('40001'),
    new Error('Connection terminated unexpectedly'),
  ]) {
    assert.ok(isStorageUnavailable(err), err.message);
  }
  for (const err of [
    new TypeError('x is undefined'),
    coded('23505'),
    coded('42P01'),
    coded('SQLITE_CONSTRAINT_UNIQUE'),
    null,
    undefined,
    'text',
  ]) {
    assert.ok(!isStorageUnavailable(err), String(err));
  }
});
