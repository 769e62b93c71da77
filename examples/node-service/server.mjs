// @ts-check
// A small Node HTTP service that decides with Ensign flags evaluated in the process by @ensign/sdk:
// no request to Ensign per decision, changes arrive through the change stream, the last document
// is kept on disk (a restart with Ensign down is served at once), and conversions are sent as
// outcome events for experiments.
//
//   ENSIGN_URL=http://127.0.0.1:8080 ENSIGN_SDK_KEY=sdk_… PORT=3000 node server.mjs
//   curl 'http://127.0.0.1:3000/checkout?user=user-1&plan=beta&country=NO'
//   curl -X POST 'http://127.0.0.1:3000/purchase?user=user-1&amount=12.5'
import { createServer } from 'node:http';
import { createClient } from '@ensign/sdk';
import { fileStore } from '@ensign/sdk/file-store';

const url = process.env.ENSIGN_URL ?? 'http://127.0.0.1:8080';
const key = process.env.ENSIGN_SDK_KEY;
if (!key) {
  console.error('Set ENSIGN_SDK_KEY to an sdk_ key of the environment (ensign keys create --type sdk).');
  process.exit(2);
}

const flags = createClient({ url, key, store: fileStore(process.env.ENSIGN_STORE_DIR ?? '.ensign') });
flags.on('changed', ({ keys, version }) =>
  console.log(`ensign: version ${version}, changed: ${keys.join(', ') || 'nothing we evaluate'}`),
);
flags.on('stale', ({ error }) => console.warn(`ensign: serving the last document (${error.message})`));
flags.on('fatal', ({ error }) => console.error(`ensign: ${error.message}`));

/** The evaluation context of a request: who asks, and what rules may target. */
function contextOf(/** @type {URLSearchParams} */ query) {
  return {
    targetingKey: query.get('user') ?? 'anonymous',
    plan: query.get('plan') ?? 'free',
    country: query.get('country') ?? 'US',
  };
}

const server = createServer((req, res) => {
  const request = new URL(req.url ?? '/', 'http://service');
  const user = contextOf(request.searchParams);
  const send = (/** @type {number} */ status, /** @type {unknown} */ body) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  if (req.method === 'GET' && request.pathname === '/checkout') {
    const checkout = flags.detail('checkout', user, 'classic');
    return send(200, {
      checkout: checkout.value,
      reason: checkout.reason,
      variant: checkout.variant ?? null,
      darkMode: flags.boolean('dark-mode', user, false),
      version: flags.version,
    });
  }
  if (req.method === 'POST' && request.pathname === '/purchase') {
    flags.track('purchase', user, Number(request.searchParams.get('amount') ?? 0));
    return send(202, { tracked: true });
  }
  if (req.method === 'GET' && request.pathname === '/health')
    return send(200, { status: flags.status, version: flags.version });
  send(404, { error: 'not found' });
});

// Serve only once a configuration is there (from the network, or the copy on disk).
const source = await flags.ready({ timeoutMs: 5000 });
server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const address = server.address();
  console.log(
    `listening on ${typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : address}, flags from ${source}`,
  );
});

// On SIGTERM or SIGINT: stop taking requests, flush the events (for up to 10 s: well inside the
// usual 30 s a deploy waits), release the SDK; the process then exits on its own (close() leaves no
// timer or socket behind).
for (const signal of /** @type {const} */ (['SIGTERM', 'SIGINT'])) {
  process.once(signal, () => {
    server.close();
    server.closeAllConnections();
    void flags
      .close({ timeoutMs: 10_000 })
      .then(() => console.log(`closed: ${flags.eventStats().delivered} events delivered`));
  });
}
