// One-dimensional PostgreSQL arrays in the binary wire format (array_send / array_recv), built into
// one Buffer that node-postgres sends as a binary parameter. Ingestion binds a group's rows as one
// array per column (repeated-inserts.ts); as text literals node-postgres quoted and escaped every
// element through two regular expressions and a chain of concatenations, which was 22 % of what an
// ingesting server allocated, and PostgreSQL parsed the quotes back. In binary an element is its
// length and its bytes: nothing to escape, nothing to parse.
//
// Layout: ndim, has-nulls flag, element type OID, then per dimension its length and lower bound (1),
// then each element as a 4-byte length (-1 for NULL) and its bytes, all big-endian.

/** The column types ingestion's bulk inserts bind (repeated-inserts.ts). */
export type PostgresColumnType = 'text' | 'bigint' | 'integer' | 'double precision' | 'bytea';

/** The element types' OIDs (pg_type): array_recv refuses an array of another element type. */
const ELEMENT_OIDS: Record<PostgresColumnType, number> = {
  text: 25,
  bigint: 20,
  integer: 23,
  'double precision': 701,
  bytea: 17,
};

const FIXED_WIDTHS: Partial<Record<PostgresColumnType, number>> = { bigint: 8, integer: 4, 'double precision': 8 };
const TWO_TO_32 = 4_294_967_296;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function refuse(type: PostgresColumnType, value: unknown): never {
  throw new TypeError(
    `a ${type} array cannot hold ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
  );
}

/** Upper bound of an element's encoded bytes (its length prefix excluded). */
function maxBytes(type: PostgresColumnType, value: unknown): number {
  const fixed = FIXED_WIDTHS[type];
  if (fixed !== undefined) return fixed;
  if (type === 'bytea') return value instanceof Uint8Array ? value.length : refuse(type, value);
  // UTF-8 takes at most 3 bytes per UTF-16 unit (a surrogate pair, two units, takes 4).
  return typeof value === 'string' ? value.length * 3 : refuse(type, value);
}

function writeElement(buf: Buffer, offset: number, type: PostgresColumnType, value: unknown): number {
  switch (type) {
    case 'text':
      return buf.write(value as string, offset, 'utf8');
    case 'bytea':
      buf.set(value as Uint8Array, offset);
      return (value as Uint8Array).length;
    case 'integer':
      if (!Number.isInteger(value) || (value as number) < -2_147_483_648 || (value as number) > 2_147_483_647)
        refuse(type, value);
      buf.writeInt32BE(value as number, offset);
      return 4;
    case 'double precision':
      if (typeof value !== 'number') refuse(type, value);
      buf.writeDoubleBE(value, offset);
      return 8;
    case 'bigint':
      if (typeof value === 'number' && Number.isSafeInteger(value)) {
        // Two 32-bit halves, exact for every safe integer (negative ones in two's complement).
        const high = Math.floor(value / TWO_TO_32);
        buf.writeInt32BE(high, offset);
        buf.writeUInt32BE(value - high * TWO_TO_32, offset + 4);
        return 8;
      }
      return writeWideInteger(buf, offset, value);
  }
}

/** A bigint element beyond 2^53 (a bigint, an integral number or a decimal string), range-checked. */
function writeWideInteger(buf: Buffer, offset: number, value: unknown): number {
  let wide: bigint;
  if (typeof value === 'bigint') wide = value;
  else if (typeof value === 'number' && Number.isInteger(value)) wide = BigInt(value);
  else if (typeof value === 'string' && /^-?[0-9]{1,19}$/.test(value)) wide = BigInt(value);
  else refuse('bigint', value);
  if (wide < INT64_MIN || wide > INT64_MAX) refuse('bigint', value);
  buf.writeBigInt64BE(wide, offset);
  return 8;
}

/** `values` as a binary array of `type` (null and undefined elements are NULL). */
export function binaryArray(type: PostgresColumnType, values: readonly unknown[]): Buffer {
  const n = values.length;
  let size = n === 0 ? 12 : 20;
  for (const value of values) size += 4 + (value === null || value === undefined ? 0 : maxBytes(type, value));
  const buf = Buffer.allocUnsafe(size);
  buf.writeInt32BE(n === 0 ? 0 : 1, 0);
  buf.writeInt32BE(values.some((v) => v === null || v === undefined) ? 1 : 0, 4);
  buf.writeUInt32BE(ELEMENT_OIDS[type], 8);
  let offset = 12;
  if (n > 0) {
    buf.writeInt32BE(n, 12);
    buf.writeInt32BE(1, 16);
    offset = 20;
  }
  for (const value of values) {
    if (value === null || value === undefined) {
      buf.writeInt32BE(-1, offset);
      offset += 4;
      continue;
    }
    const written = writeElement(buf, offset + 4, type, value);
    buf.writeInt32BE(written, offset);
    offset += 4 + written;
  }
  return buf.subarray(0, offset);
}
