import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keepTickShape, keptTick } from './tick-shape.js';

test('the kept object is a tick of process.nextTick, and a new one replaces it each time', async () => {
  await keepTickShape();
  const first = keptTick() as Record<string | symbol, unknown>;
  // The shape nextTick builds: its two async id symbols (and, while an AsyncLocalStorage is in use
  // in the process, its store), then callback and args.
  const symbols = Object.getOwnPropertySymbols(first).map((s) => s.description);
  assert.ok(symbols.includes('async_id_symbol') && symbols.includes('trigger_async_id_symbol'), String(symbols));
  assert.deepEqual(Object.keys(first), ['callback', 'args']);
  assert.equal(typeof first.callback, 'function');
  await keepTickShape();
  assert.notEqual(keptTick(), first);
});
