// The HTTP side of idempotency: the one schema of the `Idempotency-Key` header, reading the key from
// a request, and sending a stored (possibly replayed) response.
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, validationError } from './errors.js';
import type { StoredResponse } from './idempotency.service.js';

const KEY_PATTERN = /^[\x21-\x7e]{8,128}$/;

/** The `Idempotency-Key` request header of every route that takes one (routes say whether it is required). */
export const IdempotencyKeyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 8,
      maxLength: 128,
      description:
        'Caller-stable key, 8 to 128 printable ASCII characters: a retry with the same key and request replays the first answer. Required where the route says so.',
    }),
  ),
});

/**
 * Reads the key from the `Idempotency-Key` header or, where the route's body declares it, the body
 * field; both given must agree.
 */
export function idempotencyKeyOf(
  request: FastifyRequest,
  options: { required: boolean; bodyField?: string },
): string | null {
  const header = request.headers['idempotency-key'];
  const headerKey = typeof header === 'string' ? header : null;
  const rawBodyKey = options.bodyField
    ? (request.body as Record<string, unknown> | undefined)?.[options.bodyField]
    : undefined;
  const bodyKey = typeof rawBodyKey === 'string' ? rawBodyKey : null;
  if (headerKey !== null && !KEY_PATTERN.test(headerKey)) {
    throw validationError('Idempotency-Key must be 8 to 128 printable ASCII characters.', [
      { path: 'headers.idempotency-key', message: 'must be 8 to 128 printable ASCII characters' },
    ]);
  }
  if (
    (rawBodyKey !== undefined && rawBodyKey !== null && bodyKey === null) ||
    (bodyKey !== null && !KEY_PATTERN.test(bodyKey))
  ) {
    throw validationError(`${options.bodyField} must be 8 to 128 printable ASCII characters.`, [
      { path: `/${options.bodyField}`, message: 'must be 8 to 128 printable ASCII characters' },
    ]);
  }
  if (headerKey !== null && bodyKey !== null && headerKey !== bodyKey) {
    throw validationError('The Idempotency-Key header and the body idempotencyKey differ.', [
      { path: `/${options.bodyField}`, message: 'must equal the Idempotency-Key header' },
    ]);
  }
  const key = headerKey ?? bodyKey;
  if (key === null && options.required) {
    throw new AppError(400, 'idempotency_key_required', 'This route requires an idempotency key.', {
      resolution:
        'Send a caller-stable Idempotency-Key header (8 to 128 printable ASCII characters) and reuse it on retries.',
    });
  }
  return key;
}

/** Sends a (possibly replayed) stored response. */
export function sendStored(reply: FastifyReply, result: { response: StoredResponse; replayed: boolean }) {
  if (result.replayed) reply.header('idempotent-replayed', 'true');
  return reply.code(result.response.statusCode).send(result.response.body);
}
