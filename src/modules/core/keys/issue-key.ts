// Issuing a key: a new token, stored by its hash. It needs no service (no cache, no access check),
// so apps issue an app's first keys with it directly and the two services do not need each other.
import type { Executor } from '../../../db/transaction.js';
import { newId, nowIso } from '../../../platform/ids.js';
import { issueToken } from '../../../platform/tokens.js';
import type { IssuedKey, KeyType } from './keys.model.js';
import * as repo from './keys.repository.js';

export interface IssueKeyInput {
  appId: string;
  envId: string | null;
  envSlug: string | null;
  type: KeyType;
  name?: string;
}

/** Stores a new key in the caller's transaction; the token is in the answer and nowhere else. */
export async function issueKey(trx: Executor, input: IssueKeyInput): Promise<IssuedKey> {
  const issued = issueToken(input.type);
  const row = {
    id: newId('key'),
    app_id: input.appId,
    env_id: input.envId,
    type: input.type,
    name: input.name ?? null,
    token_hash: issued.hash,
    prefix: issued.prefix,
    status: 'active',
    created_at: nowIso(),
    revoked_at: null,
    last_used_at: null,
  };
  await repo.insertKey(trx, row);
  return { ...repo.toKeyRecord(row, input.envSlug), token: issued.token };
}
