// Opaque, time-ordered ids with a type prefix (CONTRACT section 1).
import { monotonicFactory } from 'ulid';

const nextUlid = monotonicFactory();

export type IdPrefix = 'usr' | 'tok' | 'app' | 'env' | 'key' | 'chg' | 'req' | string;

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid()}`;
}

/** RFC 3339 UTC with milliseconds. */
export function nowIso(): string {
  return new Date().toISOString();
}
