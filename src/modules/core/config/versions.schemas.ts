import { Type } from '@sinclair/typebox';
import { ConfigVersionNumber, IdString } from '../../../platform/common-schemas.js';
import { DiffEntrySchema } from '../journal/index.js';
import { ConfigStateSchema, DependencySchema } from './config-state.schemas.js';

const VersionNumber = ConfigVersionNumber;
const ChangeId = Type.Union([Type.String(), Type.Null()], {
  description: 'Journal entry of the change; null for version 0.',
});

const AuthoritySchema = Type.Object({
  type: Type.Union([Type.Literal('user'), Type.Literal('admin_key'), Type.Literal('system')]),
  userId: Type.Optional(Type.String()),
  keyFingerprint: Type.Optional(Type.String()),
});

export const ListVersionsQuery = Type.Object({
  appId: IdString(),
  env: IdString(),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(
    Type.String({ minLength: 1, maxLength: 8192, description: 'The nextCursor of the previous page (opaque).' }),
  ),
});

export const ListVersionsResponse = Type.Object({
  versions: Type.Array(
    Type.Object(
      {
        version: VersionNumber('Config version.'),
        createdAt: Type.String({ format: 'date-time' }),
        changeId: ChangeId,
        operation: Type.String({ description: 'e.g. flag.update, bulk.apply; environment.create for version 0.' }),
        authority: AuthoritySchema,
      },
      { title: 'ConfigVersion' },
    ),
    { description: 'Retained versions, newest first.' },
  ),
  nextCursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as cursor for the next (older) page; null on the last page.',
  }),
  current: Type.Object({ version: VersionNumber('The current version.'), state: ConfigStateSchema }),
});

export const EnvQuery = Type.Object({ appId: IdString(), env: IdString() });
export const VersionParams = Type.Object({ version: VersionNumber('A retained version.') });

export const VersionResponse = Type.Object({
  version: VersionNumber('The version.'),
  createdAt: Type.String({ format: 'date-time' }),
  changeId: ChangeId,
  state: ConfigStateSchema,
});

export const DiffQuery = Type.Object({
  appId: IdString(),
  env: IdString(),
  from: VersionNumber('The version to compare from (a retained version).'),
  to: VersionNumber('The version to compare to (a retained version).'),
});

export const DiffResponse = Type.Object(
  {
    from: Type.Integer(),
    to: Type.Integer(),
    changes: Type.Array(DiffEntrySchema, { description: 'Sorted by resourceType, key, path.' }),
    dependencies: Type.Array(
      Type.Object({ key: Type.String(), before: Type.Array(DependencySchema), after: Type.Array(DependencySchema) }),
      { description: 'Flags whose prerequisites changed, sorted by key.' },
    ),
    visibility: Type.Array(Type.Object({ key: Type.String(), before: Type.Boolean(), after: Type.Boolean() }), {
      description: 'Flags that became visible to (after true) or hidden from (after false) pub_ keys, sorted by key.',
    }),
    rollback: Type.Object(
      {
        fromState: Type.String({ description: 'SHA-256 of the canonical JSON of the state at `from`.' }),
        toState: Type.String({ description: 'SHA-256 of the canonical JSON of the state at `to`.' }),
      },
      { description: 'Rolling back from `to` to `from` restores the state digested as fromState.' },
    ),
  },
  { title: 'ConfigVersionDiff' },
);
