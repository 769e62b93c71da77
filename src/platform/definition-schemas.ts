// Schema pieces the experimentation definitions share (metrics, layers, holdouts, experiments):
// definition keys, the authority that made a change, and the environment a request names.
import { Type } from '@sinclair/typebox';
import { IdString } from './common-schemas.js';

export const DEFINITION_KEY_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$';

export const DefinitionKey = (description: string) =>
  Type.String({
    pattern: DEFINITION_KEY_PATTERN,
    description: `${description} 1 to 128 characters of A-Z a-z 0-9 . _ - :, starting with a letter or digit.`,
  });

export const AuthoritySchema = Type.Object(
  {
    type: Type.Union([Type.Literal('user'), Type.Literal('admin_key'), Type.Literal('system')]),
    userId: Type.Optional(Type.String()),
    keyFingerprint: Type.Optional(Type.String()),
  },
  {
    title: 'Authority',
    description: 'Who made the change: a user id or the fingerprint of an admin_ key, never a token.',
  },
);

export const EnvQuery = Type.Object({ appId: IdString(), env: IdString() });
export const IdParams = Type.Object({ id: IdString() });
export const NameString = Type.String({ minLength: 1, maxLength: 200 });
export const DescriptionString = Type.String({ maxLength: 2000 });
export const DryRun = Type.Boolean({ description: 'true: validate and answer 200 with a preview; nothing is stored.' });

/** A union of string literals whose static type is the union of the values. */
export const Literals = <T extends string>(values: readonly T[], options: { description?: string } = {}) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  );
