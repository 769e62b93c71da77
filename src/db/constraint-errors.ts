// Constraint violations become domain errors in exactly one place (ARCHITECTURE rule 2).

/** True when `err` is a unique-key violation on either engine. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string } | null;
  if (!e || typeof e.code !== 'string') return false;
  return e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** True when `err` is a foreign-key violation on either engine. */
export function isForeignKeyViolation(err: unknown): boolean {
  const e = err as { code?: string } | null;
  return !!e && (e.code === '23503' || e.code === 'SQLITE_CONSTRAINT_FOREIGNKEY');
}

/** True when a PostgreSQL serialization or deadlock failure means the transaction can be retried. */
export function isRetryableTransactionError(err: unknown): boolean {
  const e = err as { code?: string } | null;
  return !!e && (e.code === '40001' || e.code === '40P01' || e.code === 'SQLITE_BUSY');
}
