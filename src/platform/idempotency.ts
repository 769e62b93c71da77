// Caller-stable idempotency, one mechanism for every create route (CONTRACT section 1): records scoped
// to (principal, route), kept 24 hours; the same key and request replays the first response; the same
// key with another request is 409. Claim, work and record commit in one transaction, so two requests
// racing with one key produce one resource: the loser waits on the key's row, then replays.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import { isUniqueViolation } from '../db/constraint-errors.js';
import { inTransaction } from '../db/transaction.js';
import { AppError, validationError } from './errors.js';
import { digestOf } from './canonical-json.js';
import type { SecretBox } from './secret-box.js';

const RETENTION_MS = 24 * 60 * 60 * 1000;
const SECRET_REPLAY_WINDOW_MS = 15 * 60 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{8,128}$/;

export interface StoredResponse {
  statusCode: number;
  body: unknown;
  /** The body holds one-time secrets: kept encrypted, replayable only within the delivery window. */
  containsSecrets?: boolean;
}

export interface IdempotentCall {
  scope: string;
  key: string | null;
  request: unknown;
}

export interface IdempotencyService {
  run(call: IdempotentCall, work: (trx: Transaction<Database>) => Promise<StoredResponse>): Promise<{ response: StoredResponse; replayed: boolean }>;
  purgeExpired(): Promise<number>;
}

/**
 * Reads the key from the `Idempotency-Key` header or, where the route's body declares it, the body
 * field; both given must agree.
 */
export function idempotencyKeyOf(request: FastifyRequest, options: { required: boolean; bodyField?: string }): string | null {
  const header = request.headers['idempotency-key'];
  const headerKey = typeof header === 'string' ? header : null;
  const rawBodyKey = options.bodyField ? (request.body as Record<string, unknown> | undefined)?.[options.bodyField] : undefined;
  const bodyKey = typeof rawBodyKey === 'string' ? rawBodyKey : null;
  if (headerKey !== null && !KEY_PATTERN.test(headerKey)) {
    throw validationError('Idempotency-Key must be 8 to 128 printable ASCII characters.', [{ path: 'headers.idempotency-key', message: 'must be 8 to 128 printable ASCII characters' }]);
  }
  if ((rawBodyKey !== undefined && rawBodyKey !== null && bodyKey === null) || (bodyKey !== null && !KEY_PATTERN.test(bodyKey))) {
    throw validationError(`${options.bodyField} must be 8 to 128 printable ASCII characters.`, [{ path: `/${options.bodyField}`, message: 'must be 8 to 128 printable ASCII characters' }]);
  }
  if (headerKey !== null && bodyKey !== null && headerKey !== bodyKey) {
    throw validationError('The Idempotency-Key header and the body idempotencyKey differ.', [{ path: `/${options.bodyField}`, message: 'must equal the Idempotency-Key header' }]);
  }
  const key = headerKey ?? bodyKey;
  if (key === null && options.required) {
    throw new AppError(400, 'idempotency_key_required', 'This route requires an idempotency key.', {
      resolution: 'Send a caller-stable Idempotency-Key header (8 to 128 printable ASCII characters) and reuse it on retries.',
    });
  }
  return key;
}

/** Sends a (possibly replayed) stored response. */
export function sendStored(reply: FastifyReply, result: { response: StoredResponse; replayed: boolean }) {
  if (result.replayed) reply.header('idempotent-replayed', 'true');
  return reply.code(result.response.statusCode).send(result.response.body);
}

export function createIdempotencyService(db: Kysely<Database>, box: SecretBox, now: () => number = Date.now): IdempotencyService {
  async function replayExisting(call: IdempotentCall & { key: string }, requestHash: string) {
    const row = await db
      .selectFrom('idempotency_records')
      .selectAll()
      .where('scope', '=', call.scope)
      .where('idem_key', '=', call.key)
      .executeTakeFirst();
    if (!row) return null;
    if (Date.parse(row.expires_at) <= now()) {
      await db.deleteFrom('idempotency_records').where('scope', '=', call.scope).where('idem_key', '=', call.key).where('expires_at', '=', row.expires_at).execute();
      return null;
    }
    if (row.request_hash !== requestHash) {
      throw new AppError(409, 'idempotency_conflict', 'This idempotency key was already used with a different request.', {
        resolution: 'Use a new idempotency key for a different request, or resend the original request unchanged.',
      });
    }
    if (row.encrypted && (row.replay_expires_at === null || Date.parse(row.replay_expires_at) <= now())) {
      throw new AppError(409, 'idempotency_replay_expired', 'The original response held one-time secrets and its delivery window has passed.', {
        resolution: 'The resource was created; list it to see it, or create a new one with a new idempotency key.',
      });
    }
    const text = row.encrypted ? box.open(row.response_body!) : row.response_body!;
    return { response: { statusCode: row.status_code, body: JSON.parse(text), containsSecrets: !!row.encrypted }, replayed: true };
  }

  return {
    async run(call, work) {
      if (call.key === null) {
        const response = await inTransaction(db, work);
        return { response, replayed: false };
      }
      const keyed = { ...call, key: call.key };
      const requestHash = digestOf(call.request ?? null);
      for (let attempt = 0; attempt < 3; attempt++) {
        const replay = await replayExisting(keyed, requestHash);
        if (replay) return replay;
        try {
          const response = await inTransaction(db, async (trx) => {
            const created = new Date(now());
            await trx
              .insertInto('idempotency_records')
              .values({
                scope: call.scope,
                idem_key: keyed.key,
                request_hash: requestHash,
                status_code: 0,
                response_body: null,
                encrypted: 0,
                created_at: created.toISOString(),
                expires_at: new Date(created.getTime() + RETENTION_MS).toISOString(),
                replay_expires_at: null,
              })
              .execute();
            const result = await work(trx);
            const text = JSON.stringify(result.body);
            await trx
              .updateTable('idempotency_records')
              .set({
                status_code: result.statusCode,
                response_body: result.containsSecrets ? box.seal(text) : text,
                encrypted: result.containsSecrets ? 1 : 0,
                replay_expires_at: result.containsSecrets ? new Date(created.getTime() + SECRET_REPLAY_WINDOW_MS).toISOString() : null,
              })
              .where('scope', '=', call.scope)
              .where('idem_key', '=', keyed.key)
              .execute();
            return result;
          });
          return { response, replayed: false };
        } catch (err) {
          // Another request with this key committed first: loop round and replay its response.
          if (!isUniqueViolation(err)) throw err;
        }
      }
      throw new AppError(409, 'idempotency_conflict', 'Another request with this idempotency key is in progress.', {
        resolution: 'Retry in a moment with the same key.',
      });
    },
    async purgeExpired() {
      const result = await db.deleteFrom('idempotency_records').where('expires_at', '<=', new Date(now()).toISOString()).executeTakeFirst();
      return Number(result.numDeletedRows ?? 0);
    },
  };
}
