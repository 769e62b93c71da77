// Small schema pieces every module uses, so limits are written once.
import { Type } from '@sinclair/typebox';

export const IdString = (description?: string) => Type.String({ minLength: 1, maxLength: 128, ...(description ? { description } : {}) });
export const Timestamp = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) });
export const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()]);
