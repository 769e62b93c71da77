// Keeps V8's young generation at its initial size while the server starts (decision 0065).
// Importing about 1,600 modules and registering 200 routes allocates fast and keeps nearly
// everything, so each scavenge sees a high survival rate and V8 doubles the semi-spaces up to their
// 16 MiB maximum: 30 MiB resident that start leaves empty. Holding the growth factor at 1 while
// starting keeps them at 1 MiB (what survives is promoted a little earlier instead); once released,
// the young generation grows under load as V8 sees fit.
//
// Decision 0057 asked V8 for a low-memory collection after start instead. That collection
// (`Isolate::LowMemoryNotification`) leaves code optimised before it on a slow path for good: an
// object literal with computed keys that was fast before it cost 20 times as much after it, and
// `process.nextTick` (such a literal) 2 to 2.5 times; a 304 cost twice the CPU in one benchmark.
// V8's own memory reducer, later, does not do that.
import { setFlagsFromString } from 'node:v8';

/** V8's default `--semi-space-growth-factor`, restored on release. */
const DEFAULT_GROWTH_FACTOR = 2;
const FLAG = '--semi-space-growth-factor';

let holders = 0;

/** Whether an operator set a V8 flag on the command line (or in NODE_OPTIONS): theirs is kept. */
export const setByOperator = (flag: string) =>
  process.execArgv.some((arg) => arg.startsWith(flag)) || (process.env.NODE_OPTIONS ?? '').includes(flag);

/**
 * Holds the young generation at its present size until the returned function is called (once per
 * hold; holds nest, for servers started side by side in one process). V8 flags are the process's:
 * a worker thread started meanwhile is held too.
 */
export function holdYoungGeneration(): () => void {
  if (setByOperator(FLAG)) return () => undefined;
  if (holders++ === 0) setFlagsFromString(`${FLAG}=1`);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--holders === 0) setFlagsFromString(`${FLAG}=${DEFAULT_GROWTH_FACTOR}`);
  };
}
