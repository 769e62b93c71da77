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

/** Failed logins of one e-mail or client address within a window (login-throttle.ts). */
export interface LoginFailuresTable {
  /** SHA-256 of `e:<email>` or `a:<address>`: the table keeps no e-mails or addresses. */
  key: string;
  failures: number;
  /** Epoch milliseconds at which the window ends and the count starts again. */
  reset_at: number;
}

export interface AuthTables {
  users: UsersTable;
  cli_tokens: CliTokensTable;
  login_failures: LoginFailuresTable;
}
