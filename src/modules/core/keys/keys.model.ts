export const KEY_TYPES = ['sdk', 'pub', 'admin'] as const;
export type KeyType = (typeof KEY_TYPES)[number];

export interface KeyRecord {
  id: string;
  type: KeyType;
  appId: string;
  env: string | null;
  name?: string;
  prefix: string;
  status: 'active' | 'revoked';
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

/** A key as returned once, at creation: the record plus its plaintext token. */
export interface IssuedKey extends KeyRecord {
  token: string;
}
