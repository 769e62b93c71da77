// Constraint violations become domain errors in exactly one place (ARCHITECTURE rule 2).

/** True when `err` is a unique-key violation on either engine. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string } | null;
  if (!e || typeof e.code !== 'string') return false;
  return e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** True when a PostgreSQL serialization or deadlock failure means the transaction can be retried. */
export function isRetryableTransactionError(err: unknown): boolean {
  const e = err as { code?: string } | null;
  return !!e && (e.code === '40001' || e.code === '40P01' || e.code === 'SQLITE_BUSY');
}

/** Codes of a database that cannot be reached or cannot take the work now (not a defect of ours). */
const UNAVAILABLE_CODES = new Set([
  // Node's network errors (PostgreSQL unreachable, connection dropped).
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN',
  // PostgreSQL: connection exceptions, too many connections, shutting down, cannot connect now.
  '08000', '08001', '08003', '08004', '08006', '53300', '57P01', '57P02', '57P03',
  // SQLite: the file is busy or locked by another connection, or the disk is full.
  'SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_FULL', 'SQLITE_IOERR',
]);

/**
 * True when `err` means storage is unavailable for now, so the request may be retried unchanged
 * (a 503). Anything else is a defect and must surface as one, with its cause.
 */
export function isStorageUnavailable(err: unknown): boolean {
  if (isRetryableTransactionError(err)) return true;
  const e = err as { code?: string; message?: string } | null;
  if (!e) return false;
  if (typeof e.code === 'string' && (UNAVAILABLE_CODES.has(e.code) || e.code.startsWith('SQLITE_IOERR'))) return true;
  // node-postgres's own words for a pool or connection that gave up (it sets no code).
  return typeof e.message === 'string' && /^(Connection terminated|timeout exceeded when trying to connect|Cannot use a pool after calling end)/.test(e.message);
}
