import { Type } from '@sinclair/typebox';
import { IdString, Timestamp } from '../../../platform/common-schemas.js';
import { JOURNAL_SOURCES } from './journal.model.js';

export const DiffEntrySchema = Type.Object({
  op: Type.Union([Type.Literal('add'), Type.Literal('remove'), Type.Literal('change')]),
  resourceType: Type.String(),
  key: Type.String(),
  path: Type.String(),
  before: Type.Optional(Type.Unknown()),
  after: Type.Optional(Type.Unknown()),
});

export const JournalEntrySchema = Type.Object(
  {
    id: Type.String(),
    appId: Type.String(),
    env: Type.Union([Type.String(), Type.Null()]),
    operation: Type.String({ description: 'e.g. app.create, key.create, key.revoke, flag.update' }),
    source: Type.Union(JOURNAL_SOURCES.map((s) => Type.Literal(s))),
    resourceType: Type.String(),
    resourceId: Type.Union([Type.String(), Type.Null()]),
    authority: Type.Object({
      type: Type.Union([Type.Literal('user'), Type.Literal('admin_key'), Type.Literal('system')]),
      userId: Type.Optional(Type.String()),
      keyFingerprint: Type.Optional(Type.String()),
    }),
    beforeVersion: Type.Union([Type.Integer(), Type.Null()]),
    afterVersion: Type.Union([Type.Integer(), Type.Null()]),
    diff: Type.Array(DiffEntrySchema),
    context: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'What else the entry names: rollback.apply carries targetVersion and planDigest; authority executions carry proposalId, receiptId, proposedBy and approvers; emergency stops (source emergency) carry the reason.',
      }),
    ),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { title: 'JournalEntry' },
);

export const ListChangesQuery = Type.Object({
  appId: IdString(),
  id: Type.Optional(IdString('A single journal entry id.')),
  env: Type.Optional(IdString()),
  operation: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  source: Type.Optional(Type.Union(JOURNAL_SOURCES.map((s) => Type.Literal(s)))),
  resourceType: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  resourceId: Type.Optional(IdString()),
  authorityType: Type.Optional(Type.Union([Type.Literal('user'), Type.Literal('admin_key'), Type.Literal('system')])),
  userId: Type.Optional(IdString()),
  keyFingerprint: Type.Optional(Type.String({ pattern: '^[0-9a-f]{16}$' })),
  from: Type.Optional(Timestamp()),
  to: Type.Optional(Timestamp()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 8192 })),
});

export const ListChangesResponse = Type.Object({
  changes: Type.Array(JournalEntrySchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});
