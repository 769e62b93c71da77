// The status an OpenFeature provider reports, from the client's events: STALE as soon as a refresh
// fails, ERROR when it is still failing after a grace period, READY again when a refresh succeeds,
// CONFIGURATION_CHANGED with the changed flag keys, and a fatal ERROR when the key is refused.
// READY at start is not reported: the OpenFeature SDKs derive it from initialize().
import type { EnsignClient } from './client.js';
import { later, type Timer } from './timers.js';

export type ProviderSignal =
  | { event: 'ready' }
  | { event: 'stale'; message: string }
  | { event: 'error'; message: string; fatal: boolean }
  | { event: 'changed'; flagsChanged: string[] };

/** Follows `client` until the returned function is called. Signals wait for `started()`: before
 * the provider's initialize() resolves, the SDK owns the status. */
export function watchProviderStatus(
  client: EnsignClient,
  signal: (s: ProviderSignal) => void,
  graceMs: number,
): { started(): void; stop(): void } {
  let started = false;
  let degraded = false;
  let grace: Timer | undefined;
  const stale = (message: string) => {
    if (!started || degraded) return;
    degraded = true;
    signal({ event: 'stale', message });
    grace = later(graceMs, () =>
      signal({ event: 'error', message: `No fresh configuration for ${graceMs} ms: ${message}`, fatal: false }),
    );
  };
  const off = [
    client.on('stale', ({ error }) => stale(error.message)),
    client.on('ready', () => {
      clearTimeout(grace);
      if (started && degraded) signal({ event: 'ready' });
      degraded = false;
    }),
    client.on('changed', ({ keys }) => started && signal({ event: 'changed', flagsChanged: keys })),
    client.on('fatal', ({ error }) => {
      clearTimeout(grace);
      if (started) signal({ event: 'error', message: error.message, fatal: true });
    }),
  ];
  return {
    started() {
      started = true;
      // A refresh that failed while initialize() was running.
      if (client.status === 'stale')
        queueMicrotask(() => stale('the configuration could not be refreshed while the provider started'));
    },
    stop() {
      clearTimeout(grace);
      for (const remove of off) remove();
    },
  };
}
