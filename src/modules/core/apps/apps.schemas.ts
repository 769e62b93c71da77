import { Type } from '@sinclair/typebox';
import { IdString } from '../../../platform/common-schemas.js';
import { ROLES } from '../../../platform/app-access.js';
import { IssuedKeySchema } from '../keys/index.js';
import { MAX_REQUIRED_APPROVALS } from './apps.model.js';

export const SLUG_PATTERN = '^[a-z][a-z0-9]*(-[a-z0-9]+)*$';

export const AppSchema = Type.Object(
  { id: Type.String(), name: Type.String(), slug: Type.String(), createdAt: Type.String({ format: 'date-time' }) },
  { title: 'App' },
);

export const PolicySchema = Type.Object(
  {
    requiredApprovals: Type.Integer({
      minimum: 0,
      maximum: MAX_REQUIRED_APPROVALS,
      description:
        'Distinct approvals every configuration change needs through the authority workflow; 0 allows direct writes.',
    }),
  },
  { title: 'EnvironmentPolicy' },
);

export const EnvironmentSchema = Type.Object(
  {
    id: Type.String(),
    appId: Type.String(),
    slug: Type.String(),
    name: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    policy: PolicySchema,
  },
  { title: 'Environment' },
);

export const RoleSchema = Type.Union(
  ROLES.map((r) => Type.Literal(r)),
  {
    description:
      'owner: everything, including members, environment policy and keys; editor: read, change, propose, approve, execute; viewer: read.',
  },
);

export const CreateAppBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    slug: Type.String({
      minLength: 2,
      maxLength: 40,
      pattern: SLUG_PATTERN,
      description: 'Lower-case letters, digits and single hyphens.',
    }),
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
      role: RoleSchema,
      environments: Type.Array(
        Type.Object({ id: Type.String(), slug: Type.String(), name: Type.String(), policy: PolicySchema }),
      ),
    }),
  ),
});

export const ListEnvsQuery = Type.Object({ appId: IdString() });
export const ListEnvsResponse = Type.Object({ environments: Type.Array(EnvironmentSchema) });

export const SetPolicyBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    requiredApprovals: Type.Integer({
      minimum: 0,
      maximum: MAX_REQUIRED_APPROVALS,
      description:
        '0 to 5 distinct approvals; above 0, direct configuration writes answer 403 approval_required, except the stops of experiments and rollout plans, which are direct with a reason.',
    }),
  },
  { additionalProperties: false, title: 'SetEnvironmentPolicy' },
);
export const SetPolicyResponse = Type.Object({ environment: EnvironmentSchema });

export const MemberSchema = Type.Object(
  {
    userId: Type.String(),
    email: Type.String(),
    role: RoleSchema,
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { title: 'Member' },
);
export const AppParams = Type.Object({ appId: IdString() });
export const MemberParams = Type.Object({ appId: IdString(), userId: IdString() });
export const ListMembersResponse = Type.Object({ members: Type.Array(MemberSchema, { description: 'Oldest first.' }) });
export const AddMemberBody = Type.Object(
  {
    email: Type.String({
      format: 'email',
      maxLength: 254,
      description: 'The address to invite; the answer is the same whether or not anyone has signed up with it.',
    }),
    role: RoleSchema,
  },
  { additionalProperties: false, title: 'AddMember' },
);
export const SetRoleBody = Type.Object({ role: RoleSchema }, { additionalProperties: false, title: 'SetMemberRole' });
export const MemberResponse = Type.Object({ member: MemberSchema });
