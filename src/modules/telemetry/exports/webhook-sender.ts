// One HTTPS POST to a receiver, to the address the policy approved (never a second DNS lookup that
// could answer differently), with the host name kept for TLS and the Host header. Redirects are
// answers like any other: they are never followed.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { createSecureContext, rootCertificates } from 'node:tls';
import type { ExportPolicy } from './export-policy.js';

export interface SendResult {
  /** HTTP status, or null when no answer came (connection, TLS or timeout failure). */
  status: number | null;
  message: string;
}

export type WebhookSender = (
  target: { url: string; address: string },
  headers: Record<string, string>,
  body: string,
  signal?: AbortSignal,
) => Promise<SendResult>;

const TIMEOUT_MS = 15_000;

export function createWebhookSender(policy: ExportPolicy, options: { port?: number } = {}): WebhookSender {
  // An extra CA is built into one TLS context, once: passed as `ca`, the agent would copy every
  // trusted certificate (~200 KB) into its connection key on each request and parse them again on each
  // connection (0.7 ms of CPU per delivery, with the CA setting on).
  const secureContext = policy.caFile
    ? createSecureContext({ ca: [...rootCertificates, readFileSync(policy.caFile, 'utf8')] })
    : undefined;
  // Connections are kept alive between deliveries: a TLS handshake per batch cost more than sending
  // it. The agent keys each connection by the pinned address and the server name, so a kept
  // connection only ever carries requests for the address the policy approved for that host.
  const agent = new Agent({
    keepAlive: true,
    maxSockets: 8,
    maxFreeSockets: 8,
    ...(secureContext ? { secureContext } : {}),
  });
  return (target, headers, body, signal) =>
    new Promise((resolve) => {
      const url = new URL(target.url);
      const req = request(
        {
          host: target.address,
          port: options.port ?? 443,
          servername: url.hostname,
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          headers: {
            ...headers,
            host: url.host,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
          },
          agent,
          timeout: TIMEOUT_MS,
          signal,
        },
        (res) => {
          // Read at most 1 KiB of the answer for the error message, then drop the rest.
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            if (text.length < 1024) text += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? null, message: text.slice(0, 1024) }));
          res.on('error', (err) => resolve({ status: res.statusCode ?? null, message: err.message }));
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
      req.on('error', (err) => resolve({ status: null, message: err.message }));
      req.end(body);
    });
}
