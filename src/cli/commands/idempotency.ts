// Idempotency keys the CLI sends on create routes: the user's own, or a fresh random one.
import { randomUUID } from 'node:crypto';
import { UsageError } from '../errors.js';

export function idempotencyKey(given?: string): string {
  if (given === undefined) return `cli-${randomUUID()}`;
  if (!/^[\x21-\x7e]{8,128}$/.test(given))
    throw new UsageError('--idempotency-key must be 8 to 128 printable ASCII characters without spaces');
  return given;
}
