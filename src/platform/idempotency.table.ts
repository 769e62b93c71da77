export interface IdempotencyRecordsTable {
  scope: string;
  idem_key: string;
  request_hash: string;
  status_code: number;
  /** The first response body: plaintext JSON, or AES-256-GCM ciphertext when it held secrets. */
  response_body: string | null;
  encrypted: number;
  created_at: string;
  expires_at: string;
  /** After this instant a replay of a response holding secrets answers 409 idempotency_replay_expired. */
  replay_expires_at: string | null;
}

export interface IdempotencyTables {
  idempotency_records: IdempotencyRecordsTable;
}
