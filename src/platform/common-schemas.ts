// Small schema pieces every module uses, so limits are written once.
import { Type } from '@sinclair/typebox';

export const IdString = (description?: string) => Type.String({ minLength: 1, maxLength: 128, ...(description ? { description } : {}) });
export const Timestamp = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) });
export const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()]);

/** Config versions are stored as 32-bit integers (both engines): anything above is no version, and
 * an unbounded integer reached the database (or was reported back as "version 1e+20"). */
export const MAX_CONFIG_VERSION = 2_147_483_647;
export const ConfigVersionNumber = (description: string) => Type.Integer({ minimum: 0, maximum: MAX_CONFIG_VERSION, description });
