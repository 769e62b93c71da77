import { Type } from '@sinclair/typebox';
import { IdString } from '../../platform/common-schemas.js';
import { IssuedKeySchema } from '../keys/index.js';

export const SLUG_PATTERN = '^[a-z][a-z0-9]*(-[a-z0-9]+)*$';

export const AppSchema = Type.Object(
  { id: Type.String(), name: Type.String(), slug: Type.String(), createdAt: Type.String({ format: 'date-time' }) },
  { title: 'App' },
);

export const EnvironmentSchema = Type.Object(
  { id: Type.String(), appId: Type.String(), slug: Type.String(), name: Type.String(), createdAt: Type.String({ format: 'date-time' }) },
  { title: 'Environment' },
);

export const CreateAppBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    slug: Type.String({ minLength: 2, maxLength: 40, pattern: SLUG_PATTERN, description: 'Lower-case letters, digits and single hyphens.' }),
  },
  { additionalProperties: false },
);

export const CreateAppResponse = Type.Object({
  app: AppSchema,
  environments: Type.Array(EnvironmentSchema),
  keys: Type.Array(IssuedKeySchema, { description: 'One sdk key per environment; tokens shown once.' }),
  adminKey: IssuedKeySchema,
});

export const ListAppsResponse = Type.Object({
  apps: Type.Array(
    Type.Object({
      ...AppSchema.properties,
      environments: Type.Array(Type.Object({ id: Type.String(), slug: Type.String(), name: Type.String() })),
    }),
  ),
});

export const ListEnvsQuery = Type.Object({ appId: IdString() });
export const ListEnvsResponse = Type.Object({ environments: Type.Array(EnvironmentSchema) });
