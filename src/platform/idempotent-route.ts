// The one shape of every idempotent route: the caller's principal, an Idempotency-Key scoped to
// (principal, route), and the work in one transaction whose answer is stored with the key (CONTRACT
// section 1). Every create route and mutation that takes a key goes through runIdempotent, so a
// retried request replays its first answer; the route's name comes from its own pattern.
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
  /** What the request asks: the same key with a different fingerprint is 409 idempotency_conflict. */
  fingerprint: unknown;
  statusCode: number;
  work: (trx: Executor, principal: Principal, key: string | null) => Promise<unknown>;
  /** Without a key the route answers 400 idempotency_key_required (app, key and export creation). */
  keyRequired?: boolean;
  /** The body field that may carry the key instead of the header (both given must agree). */
  bodyField?: string;
  /** The answer holds one-time secrets: stored encrypted, replayable only within the delivery window. */
  containsSecrets?: boolean;
  /** What a replay adds to the stored answer (the bulk routes' replay metadata). */
  replayed?: (body: unknown) => unknown;
}

/**
 * The route an idempotency record is scoped to, from the route's own pattern (`:id` written `{id}`,
 * as in the OpenAPI document): `POST /api/v1/metrics/{id}/revisions`. No route types its URL twice.
 */
export function idempotencyRouteOf(request: FastifyRequest): string {
  const pattern = request.routeOptions.url;
  if (pattern === undefined) throw new Error('idempotent work runs in a route handler');
  return `${request.method} ${pattern.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`;
}

/** The stored answer is the first one; a replay of a route with replay metadata says it is one. */
export function replayedAnswer(body: unknown): unknown {
  const answer = body as { replay: Record<string, unknown> };
  return { ...answer, replay: { ...answer.replay, replayed: true } };
}

/** Runs `call.work` once per (caller, route, key): a retry with the key replays the stored answer. */
export async function runIdempotent(
  idempotency: IdempotencyService,
  request: FastifyRequest,
  reply: FastifyReply,
  call: IdempotentWork,
) {
  const principal = principalOf(request);
  const key = idempotencyKeyOf(request, { required: call.keyRequired ?? false, bodyField: call.bodyField });
  const result = await idempotency.run(
    { scope: `${principalScope(principal)}:${idempotencyRouteOf(request)}`, key, request: call.fingerprint },
    async (trx) => ({
      statusCode: call.statusCode,
      body: await call.work(trx, principal, key),
      ...(call.containsSecrets ? { containsSecrets: true } : {}),
    }),
  );
  if (result.replayed && call.replayed) result.response.body = call.replayed(result.response.body);
  return sendStored(reply, result);
}

/**
 * Routes with a `dryRun` flag (layers, holdouts): a dry run answers 200 `{ preview }` and stores
 * nothing, not even an idempotency record; otherwise the call runs as runIdempotent does.
 */
export async function previewOrRun(
  idempotency: IdempotencyService,
  request: FastifyRequest,
  reply: FastifyReply,
  dryRun: boolean | undefined,
  preview: (principal: Principal) => Promise<unknown>,
  call: IdempotentWork,
) {
  if (dryRun) return reply.code(200).send({ preview: await preview(principalOf(request)) });
  return runIdempotent(idempotency, request, reply, call);
}
