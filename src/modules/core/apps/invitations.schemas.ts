// Request and response schemas of invitations (CONTRACT.md §8).
import { Type } from '@sinclair/typebox';
import { IdString, Timestamp } from '../../../platform/common-schemas.js';
import { MemberSchema, RoleSchema } from './apps.schemas.js';

const invitationFields = {
  id: Type.String({ description: 'inv_…' }),
  appId: Type.String(),
  role: RoleSchema,
  expiresAt: Timestamp('7 days after the invitation was made or last renewed.'),
  createdAt: Timestamp(),
};

export const InvitationSchema = Type.Object(invitationFields, { additionalProperties: false, title: 'Invitation' });
export const InvitationResponse = Type.Object({ invitation: InvitationSchema }, { additionalProperties: false });

export const AppInvitationSchema = Type.Object(
  {
    ...invitationFields,
    email: Type.String({ description: 'The invited address, lower-cased.' }),
    invitedBy: Type.String({ description: 'The owner who invited (user id).' }),
  },
  { additionalProperties: false, title: 'AppInvitation' },
);
export const ListAppInvitationsResponse = Type.Object(
  { invitations: Type.Array(AppInvitationSchema, { description: 'Pending and not expired, oldest first.' }) },
  { additionalProperties: false },
);

export const ReceivedInvitationSchema = Type.Object(
  { ...invitationFields, appName: Type.String(), appSlug: Type.String() },
  { additionalProperties: false, title: 'ReceivedInvitation' },
);
export const ListReceivedInvitationsResponse = Type.Object(
  {
    invitations: Type.Array(ReceivedInvitationSchema, {
      description: 'Addressed to you, pending and not expired, oldest first.',
    }),
  },
  { additionalProperties: false },
);

export const InvitationParams = Type.Object({ invitationId: IdString() });
export const AppInvitationParams = Type.Object({ appId: IdString(), invitationId: IdString() });
export const AcceptInvitationResponse = Type.Object(
  { appId: Type.String(), member: MemberSchema },
  { additionalProperties: false },
);
