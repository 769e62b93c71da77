// Keeps one of `process.nextTick`'s tick objects alive, so that V8 keeps their shape (decision 0066).
//
// nextTick builds each tick as an object literal with computed keys,
// `{ [async_id_symbol]: id, [trigger_async_id_symbol]: trigger, callback, args }`, and a tick lives
// for microseconds. When a full collection finds none alive, V8 (11.3, in Node 20) drops the shape;
// the next tick builds it anew, and after a few such collections the literal's inline cache gives up:
// from then on every tick takes the runtime's slow path, for the life of the process (such a literal
// in a loop: 12 ns before, 240 ns after). Node's streams and HTTP server make several ticks per
// request, so a 304 cost 22–23 µs of CPU once a full collection had run after warm-up, 17–18 µs with
// a tick kept. A kept tick keeps the shape, and the cache stays fast.
//
// The tick is taken again on a timer: the shape changes once (from small-integer to double fields)
// when the process's async ids pass 2^31, and the new one needs a live tick of its own.
import { executionAsyncResource } from 'node:async_hooks';

/** How often the kept tick is replaced by a fresh one. */
export const TICK_SHAPE_REFRESH_MS = 60_000;

let kept: object | undefined;

/** Takes the tick object this schedules (inside a tick, the execution resource is the tick itself). */
export function keepTickShape(): Promise<void> {
  return new Promise((resolve) =>
    process.nextTick(() => {
      kept = executionAsyncResource();
      resolve();
    }),
  );
}

/** The tick kept (tests). */
export function keptTick(): object | undefined {
  return kept;
}
