// Opaque, time-ordered ids with a type prefix (CONTRACT section 1).
import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

// ulid asks its generator for one random byte per character and, by default, calls the system's
// cryptographic generator each time: that was the largest cost of a request id (every request gets
// one). The same generator, drawn 4 KiB at a time.
const pool = new Uint8Array(4096);
let drawn = pool.length;
function randomFraction(): number {
  if (drawn === pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  return pool[drawn++]! / 256;
}

const nextUlid = monotonicFactory(randomFraction);

export type IdPrefix = 'usr' | 'tok' | 'app' | 'env' | 'key' | 'chg' | 'req' | string;

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid()}`;
}

/** RFC 3339 UTC with milliseconds. */
export function nowIso(): string {
  return new Date().toISOString();
}
