// The shape every management mutation route shares: the caller's principal, an optional
// Idempotency-Key scoped to (principal, route), and the work in one transaction whose answer is
// stored with the key (CONTRACT section 1). Create routes and CAS mutations of definitions
// (metrics, layers, holdouts, experiments) use it, so a retried request replays its first answer.
import { IdempotencyKeyHeaders } from './idempotency-http.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Executor } from '../db/transaction.js';
import { principalOf } from './authenticate.js';
import { idempotencyKeyOf, sendStored, type IdempotencyService } from './idempotency.js';
import { principalScope, type Principal } from './principal.js';

/** Route config of management routes: cli_ and admin_ credentials. */
export const MANAGEMENT_AUTH = { auth: { allow: ['cli', 'admin'] as ('cli' | 'admin')[] } };

/** The Idempotency-Key header: the one schema every route documents (idempotency-http.ts). */
export const IDEMPOTENCY_HEADER = IdempotencyKeyHeaders;

export interface IdempotentWork {
  /** The route name idempotency records are scoped to, e.g. `POST /api/v1/metrics`. */
  route: string;
  /** What the request asks: the same key with a different fingerprint is 409 idempotency_conflict. */
  fingerprint: unknown;
  statusCode: number;
  work: (trx: Executor, principal: Principal) => Promise<unknown>;
}

export async function runIdempotent(idempotency: IdempotencyService, request: FastifyRequest, reply: FastifyReply, call: IdempotentWork) {
  const principal = principalOf(request);
  const key = idempotencyKeyOf(request, { required: false });
  const result = await idempotency.run({ scope: `${principalScope(principal)}:${call.route}`, key, request: call.fingerprint }, async (trx) => ({
    statusCode: call.statusCode,
    body: await call.work(trx, principal),
  }));
  return sendStored(reply, result);
}

/**
 * Routes with a `dryRun` flag (layers, holdouts): a dry run answers 200 `{ preview }` and stores
 * nothing, not even an idempotency record; otherwise the call runs as runIdempotent does.
 */
export async function previewOrRun(idempotency: IdempotencyService, request: FastifyRequest, reply: FastifyReply, dryRun: boolean | undefined, preview: (principal: Principal) => Promise<unknown>, call: IdempotentWork) {
  if (dryRun) return reply.code(200).send({ preview: await preview(principalOf(request)) });
  return runIdempotent(idempotency, request, reply, call);
}
