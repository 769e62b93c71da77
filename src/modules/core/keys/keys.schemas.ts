import { Type } from '@sinclair/typebox';
import { IdString } from '../../../platform/common-schemas.js';
import { KEY_TYPES } from './keys.model.js';

const KeyTypeSchema = Type.Union(
  KEY_TYPES.map((t) => Type.Literal(t)),
  { description: 'sdk (server), pub (client, read-only) or admin (app management)' },
);

export const KeyRecordSchema = Type.Object(
  {
    id: Type.String(),
    type: KeyTypeSchema,
    appId: Type.String(),
    env: Type.Union([Type.String(), Type.Null()], { description: 'Environment slug; null for admin keys.' }),
    name: Type.Optional(Type.String()),
    prefix: Type.String({ description: 'First 12 characters of the token.' }),
    status: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
    createdAt: Type.String({ format: 'date-time' }),
    revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'Key' },
);

export const IssuedKeySchema = Type.Intersect(
  [KeyRecordSchema, Type.Object({ token: Type.String({ description: 'Shown once.' }) })],
  { title: 'IssuedKey' },
);

export const ListKeysQuery = Type.Object({ appId: IdString(), env: Type.Optional(IdString()) });
export const ListKeysResponse = Type.Object({ keys: Type.Array(KeyRecordSchema) });

export const CreateKeyBody = Type.Object(
  {
    appId: IdString(),
    env: Type.Optional(IdString('Required for sdk and pub keys; absent for admin keys.')),
    type: KeyTypeSchema,
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);
export const CreateKeyResponse = Type.Object({ key: IssuedKeySchema });

export const RevokeKeyBody = Type.Object(
  { keyId: IdString(), action: Type.Literal('revoke') },
  { additionalProperties: false },
);
export const RevokeKeyQuery = Type.Object({ keyId: IdString() });
export const RevokeKeyResponse = Type.Object({ key: KeyRecordSchema });
