import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keepTickShape, keptTick } from './tick-shape.js';

test('the kept object is a tick of process.nextTick, and a new one replaces it each time', async () => {
  assert.equal(keptTick(), undefined);
  await keepTickShape();
  const first = keptTick() as Record<string | symbol, unknown>;
  // The shape nextTick builds: its two async id symbols, then callback and args.
  assert.deepEqual(
    Object.getOwnPropertySymbols(first).map((s) => s.description),
    ['async_id_symbol', 'trigger_async_id_symbol'],
  );
  assert.deepEqual(Object.keys(first), ['callback', 'args']);
  assert.equal(typeof first.callback, 'function');
  await keepTickShape();
  assert.notEqual(keptTick(), first);
});
