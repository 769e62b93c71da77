// One row: the fingerprint of the server secret every process must share (secret-fingerprint.ts).
export interface ServerSecretFingerprintTable {
  id: number;
  /** HKDF of the secret for this purpose only: it reveals nothing of the secret or its other keys. */
  fingerprint: string;
  created_at: string;
}

export interface SecretFingerprintTables {
  server_secret_fingerprint: ServerSecretFingerprintTable;
}
