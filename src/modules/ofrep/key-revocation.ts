// Whether the key behind an event stream token was revoked. Tokens name a key id, not its secret,
// so the usual credential lookup (by token hash) cannot answer; the journal can: every revocation
// is recorded there as `key.revoke` with the key id, in the same transaction, and never undone.
import type { JournalService } from '../journal/index.js';
import type { StreamGrant } from './stream-token.js';

export function journalRevocationCheck(journal: Pick<JournalService, 'list'>): (grant: StreamGrant) => Promise<boolean> {
  return async (grant) => {
    const found = await journal.list({ appId: grant.appId, operation: 'key.revoke', resourceId: grant.keyId, limit: 1 });
    return found.changes.length > 0;
  };
}
