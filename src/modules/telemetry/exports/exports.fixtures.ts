// A real HTTPS receiver for export tests: a self-signed certificate generated with openssl, served
// on port 443 of a loopback address of its own (the tests run as root; the address is pinned with
// ENSIGN_EXPORT_RESOLVE and the certificate trusted with ENSIGN_EXPORT_CA_FILE).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const HOST = 'receiver.test';

export interface Received {
  headers: Record<string, string>;
  body: string;
}

/** A self-signed certificate for HOST (also the CA file) and an HTTPS server answering `status()`. */
export async function receiver(t: { after: (fn: () => Promise<void> | void) => void }, status: () => number) {
  const dir = mkdtempSync(join(tmpdir(), 'ensign-receiver-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    '-days', '1', '-subj', `/CN=${HOST}`, '-addext', `subjectAltName=DNS:${HOST}`], { stdio: 'ignore' });
  const received: Received[] = [];
  const server: Server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body });
      res.statusCode = status();
      res.end('ok');
    });
  });
  // A loopback address of its own, so parallel test files each have their own port 443.
  const address = `127.0.${Math.floor(Math.random() * 250) + 2}.${Math.floor(Math.random() * 250) + 2}`;
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(443, address, () => resolve()));
  t.after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });
  return { received, address, caFile: join(dir, 'cert.pem') };
}

