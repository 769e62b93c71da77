// The idempotency service, one mechanism for every create route (CONTRACT section 1): records scoped
// to (principal, route), kept 24 hours; the same key and request replays the first response; the same
// key with another request is 409. Claim, work and record commit in one transaction, so two requests
// racing with one key produce one resource: the loser waits on the key's row, then replays.
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import { isUniqueViolation } from '../db/constraint-errors.js';
import { inTransaction } from '../db/transaction.js';
import * as repo from './idempotency.repository.js';
import { AppError } from './errors.js';
import { digestOf } from './canonical-json.js';
import type { SecretBox } from './secret-box.js';

const RETENTION_MS = 24 * 60 * 60 * 1000;
const SECRET_REPLAY_WINDOW_MS = 15 * 60 * 1000;

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
  run(
    call: IdempotentCall,
    work: (trx: Transaction<Database>) => Promise<StoredResponse>,
  ): Promise<{ response: StoredResponse; replayed: boolean }>;
  purgeExpired(): Promise<number>;
}

export function createIdempotencyService(
  db: Kysely<Database>,
  box: SecretBox,
  now: () => number = Date.now,
): IdempotencyService {
  async function replayExisting(call: IdempotentCall & { key: string }, requestHash: string) {
    const row = await repo.findRecord(db, call.scope, call.key);
    if (!row) return null;
    if (Date.parse(row.expires_at) <= now()) {
      await repo.deleteExpiredRecord(db, call.scope, call.key, row.expires_at);
      return null;
    }
    if (row.request_hash !== requestHash) {
      throw new AppError(
        409,
        'idempotency_conflict',
        'This idempotency key was already used with a different request.',
        {
          resolution: 'Use a new idempotency key for a different request, or resend the original request unchanged.',
        },
      );
    }
    if (row.encrypted && (row.replay_expires_at === null || Date.parse(row.replay_expires_at) <= now())) {
      throw new AppError(
        409,
        'idempotency_replay_expired',
        'The original response held one-time secrets and its delivery window has passed.',
        {
          resolution: 'The resource was created; list it to see it, or create a new one with a new idempotency key.',
        },
      );
    }
    const text = row.encrypted ? box.open(row.response_body!) : row.response_body!;
    return {
      response: { statusCode: row.status_code, body: JSON.parse(text), containsSecrets: !!row.encrypted },
      replayed: true,
    };
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
            await repo.insertClaim(trx, {
              scope: call.scope,
              idem_key: keyed.key,
              request_hash: requestHash,
              status_code: 0,
              response_body: null,
              encrypted: 0,
              created_at: created.toISOString(),
              expires_at: new Date(created.getTime() + RETENTION_MS).toISOString(),
              replay_expires_at: null,
            });
            const result = await work(trx);
            const text = JSON.stringify(result.body);
            await repo.storeResponse(trx, call.scope, keyed.key, {
              status_code: result.statusCode,
              response_body: result.containsSecrets ? box.seal(text) : text,
              encrypted: result.containsSecrets ? 1 : 0,
              replay_expires_at: result.containsSecrets
                ? new Date(created.getTime() + SECRET_REPLAY_WINDOW_MS).toISOString()
                : null,
            });
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
      return repo.deleteExpired(db, new Date(now()).toISOString());
    },
  };
}
