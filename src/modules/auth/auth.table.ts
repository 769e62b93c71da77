export interface UsersTable {
  id: string;
  email: string;
  password_hash: string;
  plan: string;
  created_at: string;
}

export interface CliTokensTable {
  id: string;
  user_id: string;
  token_hash: string;
  prefix: string;
  /** JSON array of capabilities for scoped tokens; null for an unscoped login token. */
  scope: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

export interface AuthTables {
  users: UsersTable;
  cli_tokens: CliTokensTable;
}
