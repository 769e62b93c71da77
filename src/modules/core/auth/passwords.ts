// scrypt password hashes with a per-user salt, compared in constant time. The cost (log2 of scrypt's
// N; r = 8, p = 1) is the operator's ENSIGN_PASSWORD_SCRYPT_COST, 14 by default; each stored hash
// carries the parameters it was made with, so raising the cost leaves existing hashes verifiable, and
// a successful sign-in re-hashes them at the new cost (needsRehash).
import { randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { DEFAULT_PASSWORD_SCRYPT_COST } from '../../../config.js';

const R = 8;
const P = 1;
const KEY_LENGTH = 32;
/** The largest cost a hasher takes (operators are held to 17 by the configuration). */
const MAX_COST = 20;
/** The most memory a stored hash may ask for (128·N·r bytes): twice what cost 17 at r = 8 needs. */
const MAX_STORED_MEMORY = 2 * 128 * 2 ** 17 * R;

function scrypt(password: string, salt: Buffer, keyLength: number, N: number, r: number, p: number): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; Node refuses more than 32 MiB unless told (N = 2^15 and up at r = 8).
  const maxmem = 256 * N * r;
  return new Promise((done, fail) =>
    scryptCb(password, salt, keyLength, { N, r, p, maxmem }, (err, key) => (err ? fail(err) : done(key))),
  );
}

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** Whether `password` is the one `stored` was made from (false for a malformed or unknown scheme). */
  verify(password: string, stored: string): Promise<boolean>;
  /** Whether `stored` was made at another cost than this hasher's (to be re-hashed at sign-in). */
  needsRehash(stored: string): boolean;
  /**
   * A hash of nothing in particular at this hasher's cost, verified when the e-mail is unknown, so
   * that answering takes as long as for a known one and timing reveals nothing.
   */
  decoy: string;
}

export function passwordHasher(cost: number = DEFAULT_PASSWORD_SCRYPT_COST): PasswordHasher {
  if (!Number.isInteger(cost) || cost < 1 || cost > MAX_COST)
    throw new RangeError(`the scrypt cost must be an integer from 1 to ${MAX_COST}, got ${cost}`);
  const N = 2 ** cost;
  const prefix = `scrypt$${N}$${R}$${P}$`;
  return {
    async hash(password) {
      const salt = randomBytes(16);
      const key = await scrypt(password, salt, KEY_LENGTH, N, R, P);
      return `${prefix}${salt.toString('base64url')}$${key.toString('base64url')}`;
    },
    async verify(password, stored) {
      const [scheme, n, r, p, salt, hash] = stored.split('$');
      const params = [Number(n), Number(r), Number(p)];
      if (scheme !== 'scrypt' || !salt || !hash || !params.every((x) => Number.isInteger(x) && x > 0)) return false;
      const [storedN, storedR, storedP] = params as [number, number, number];
      // A damaged row must not cost a sign-in gigabytes: at most what the highest setting needs, twice.
      if (128 * storedN * storedR > MAX_STORED_MEMORY || storedP > 16) return false;
      // scrypt throws on an N that is not a power of two above 1: a damaged row, not a server fault.
      if (storedN < 2 || (storedN & (storedN - 1)) !== 0) return false;
      const expected = Buffer.from(hash, 'base64url');
      const actual = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length, storedN, storedR, storedP);
      return timingSafeEqual(actual, expected);
    },
    needsRehash: (stored) => !stored.startsWith(prefix),
    decoy: `${prefix}AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`,
  };
}
