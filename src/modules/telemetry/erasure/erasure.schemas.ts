import { Type } from '@sinclair/typebox';
import { IdString, Nullable, Timestamp } from '../../../platform/common-schemas.js';

export const ErasureBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    namespace: Type.Literal('targetingKey', {
      description: 'What subjectId identifies: the targeting key of evaluation contexts and events.',
    }),
    subjectId: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'The original subject identifier; never stored in clear beyond the erasure job, never returned.',
    }),
  },
  { additionalProperties: false, title: 'SubjectErasureRequest' },
);

export const ReceiptSchema = Type.Object(
  {
    id: Type.String({ description: 'ers_…: random, never derived from the subject.' }),
    status: Type.Union([Type.Literal('pending'), Type.Literal('completed')]),
    requestedAt: Timestamp(),
    completedAt: Nullable(Timestamp()),
    cutoff: Timestamp(
      'Events of the subject stamped at or before this instant are erased, and dropped at ingestion for as long as events that old are accepted (30 days).',
    ),
  },
  {
    title: 'SubjectErasureReceipt',
    description: 'A non-identifying receipt: it never contains the subject or anything derived from it.',
  },
);

export const ReceiptResponse = Type.Object({ receipt: ReceiptSchema });
export const ReceiptQuery = Type.Object({ appId: IdString(), env: IdString(), id: IdString() });
