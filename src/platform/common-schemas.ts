// Small schema pieces every module uses, so limits are written once.
import { Type, type IntegerOptions } from '@sinclair/typebox';

export const IdString = (description?: string) =>
  Type.String({ minLength: 1, maxLength: 128, ...(description ? { description } : {}) });
export const Timestamp = (description?: string) =>
  Type.String({ format: 'date-time', ...(description ? { description } : {}) });
export const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()]);

/** Config versions are stored as 32-bit integers (both engines): anything above is no version, and
 * an unbounded integer reached the database (or was reported back as "version 1e+20"). */
export const MAX_CONFIG_VERSION = 2_147_483_647;
export const ConfigVersionNumber = (description: string) =>
  Type.Integer({ minimum: 0, maximum: MAX_CONFIG_VERSION, description });

/** The largest integer every JSON number holds exactly (2^53 − 1): no integer field accepts more. */
export const MAX_SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

/**
 * An integer field: bounded to ±(2^53 − 1) unless `options` bound it tighter (CONTRACT.md §7), since
 * a larger one is not the number the client sent once parsed (2^53 + 1 reads as 2^53). Every
 * integer of a request (body, query, params) is one of these; a test over the OpenAPI document
 * checks it.
 */
export function SafeInteger(options: IntegerOptions = {}) {
  const minimum = Math.max(options.minimum ?? -MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER);
  const maximum = Math.min(options.maximum ?? MAX_SAFE_INTEGER, MAX_SAFE_INTEGER);
  return Type.Integer({ ...options, minimum, maximum });
}

/** The largest value of a 32-bit integer column (versions, revisions and counters on both engines). */
export const MAX_INT32 = 2_147_483_647;

/**
 * An integer stored in (or compared with) a 32-bit integer column: versions and revisions. A larger
 * one cannot match any row, and PostgreSQL refuses it as a parameter ("out of range for type
 * integer"), which answered 500.
 */
export function Int32(options: IntegerOptions = {}) {
  return SafeInteger({ ...options, maximum: Math.min(options.maximum ?? MAX_INT32, MAX_INT32) });
}
