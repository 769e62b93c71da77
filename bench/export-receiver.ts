// The HTTPS receiver of the export phase of `npm run bench:telemetry`: a self-signed certificate made
// with openssl for receiver.bench, served on port 443 of a loopback address of its own (the bench runs
// as root, as the tests do), counting the events of every delivery and answering 200 at once.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

export const RECEIVER_HOST = 'receiver.bench';

export async function startReceiver(dir: string) {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      join(dir, 'rx-key.pem'),
      '-out',
      join(dir, 'rx-cert.pem'),
      '-days',
      '1',
      '-subj',
      `/CN=${RECEIVER_HOST}`,
      '-addext',
      `subjectAltName=DNS:${RECEIVER_HOST}`,
    ],
    { stdio: 'ignore' },
  );
  const stats = { events: 0, deliveries: 0, first: 0, last: 0 };
  const server = createServer(
    { key: readFileSync(join(dir, 'rx-key.pem')), cert: readFileSync(join(dir, 'rx-cert.pem')) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { events: unknown[] };
        stats.events += body.events.length;
        stats.deliveries++;
        stats.last = performance.now();
        if (stats.first === 0) stats.first = stats.last;
        res.statusCode = 200;
        res.end();
      });
    },
  );
  const address = `127.0.${Math.floor(Math.random() * 250) + 2}.${Math.floor(Math.random() * 250) + 2}`;
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(443, address, () => resolve()));
  return {
    stats,
    address,
    caFile: join(dir, 'rx-cert.pem'),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
