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

/** PostgreSQL SQLSTATEs of an unreachable or unavailable server: connection exceptions (class 08),
 * shutdowns and "cannot connect now" (57P01–57P03), too many connections (53300). */
const UNAVAILABLE_SQLSTATES = new Set([
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '08007',
  '08P01',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);
/** Socket errors of a connection that could not be made or was cut. */
const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** SQLite: the file is busy or locked by another connection (its busy timeout ran out), cannot be opened, or the disk is full or failing. */
const UNAVAILABLE_SQLITE_CODES = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_CANTOPEN', 'SQLITE_FULL']);
/** node-postgres reports a lost or unobtainable connection with messages, not codes. */
const UNAVAILABLE_MESSAGES = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /not queryable/i,
  /Connection ended/i,
  /Cannot use a pool after calling end/i,
];

/**
 * True when `err` (or an error it wraps) says the database cannot be reached or cannot take the work
 * right now rather than that the request is wrong: the caller answers 503 with Retry-After, never 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (
    let e = err as { code?: unknown; message?: unknown; cause?: unknown } | null, depth = 0;
    e && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    if (typeof e !== 'object') return false;
    const code = typeof e.code === 'string' ? e.code : '';
    if (
      UNAVAILABLE_SQLSTATES.has(code) ||
      UNAVAILABLE_SOCKET_CODES.has(code) ||
      UNAVAILABLE_SQLITE_CODES.has(code) ||
      code.startsWith('SQLITE_IOERR')
    )
      return true;
    if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.some((m) => m.test(e!.message as string))) return true;
  }
  return false;
}

/**
 * True when storage is unavailable for now, so the request may be retried unchanged (a 503): the
 * database is away, or a transaction lost a serialization race. Anything else is a defect and must
 * surface as one, with its cause.
 */
export function isStorageUnavailable(err: unknown): boolean {
  return isRetryableTransactionError(err) || isDatabaseUnavailable(err);
}
