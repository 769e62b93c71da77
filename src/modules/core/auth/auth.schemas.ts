import { Type } from '@sinclair/typebox';

export const LoginBody = Type.Object(
  {
    flow: Type.Union([Type.Literal('signUp'), Type.Literal('signIn')]),
    email: Type.String({ format: 'email', maxLength: 254 }),
    password: Type.String({ minLength: 8, maxLength: 256, writeOnly: true }),
  },
  { additionalProperties: false },
);

export const LoginResponse = Type.Object({
  apiVersion: Type.Literal(1),
  token: Type.String({ pattern: '^cli_', description: 'Login token; shown once, valid 90 days.' }),
  expiresAt: Type.String({ format: 'date-time' }),
  user: Type.Object({ id: Type.String(), email: Type.String() }),
});
