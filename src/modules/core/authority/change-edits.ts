// What a proposal may change, and how: each kind is validated exactly as its own route validates it
// (the route's body schema, then the same pure edit), so a proposal answers the same 400 details the
// direct route would; the same edit later runs again inside the execution's locked transaction.
import { Type, type TObject, type TProperties } from '@sinclair/typebox';
import type { Plan, QuotaSet } from '../../../config.js';
import type { Executor } from '../../../db/transaction.js';
import { toAppError } from '../../../platform/error-handler.js';
import { nowIso } from '../../../platform/ids.js';
import { createValidatorCompiler } from '../../../platform/validation.js';
import {
  BulkApplyBody,
  bulkApply,
  deleteFlag,
  PatchFlagBody,
  patchFlag,
  type BulkChanges,
  type FlagFields,
  type FlagPatchOp,
} from '../flags/index.js';
import { rollbackRequestFields, type RollbacksService, type RollbackScopeInput } from '../rollbacks/index.js';
import type { ConfigEdit, CurrentConfig, EnvironmentTarget } from '../config/index.js';
import type { BuiltinChangeKind } from './authority.model.js';

/** A route's body schema without the fields the proposal itself carries (appId, env, version, key). */
function without<T extends TProperties>(schema: TObject<T>, fields: string[], title: string) {
  const properties = Object.fromEntries(Object.entries(schema.properties).filter(([k]) => !fields.includes(k)));
  return Type.Object(properties, { additionalProperties: false, title });
}

export const CHANGE_BODY_SCHEMAS: Record<BuiltinChangeKind, TObject> = {
  'flag.patch': without(PatchFlagBody, ['appId', 'env', 'expectedVersion'], 'ProposedFlagPatch'),
  'flag.delete': Type.Object(
    { key: Type.String({ minLength: 1, maxLength: 128 }) },
    { additionalProperties: false, title: 'ProposedFlagDelete' },
  ),
  'bulk.apply': without(BulkApplyBody, ['appId', 'env', 'expectedVersion', 'idempotencyKey'], 'ProposedBulkApply'),
  'rollback.apply': Type.Object(
    {
      ...rollbackRequestFields,
      planDigest: Type.String({
        pattern: '^[0-9a-f]{64}$',
        description: 'Digest of the reviewed rollback plan at baseVersion.',
      }),
      reason: Type.Optional(Type.String({ maxLength: 1000 })),
    },
    { additionalProperties: false, title: 'ProposedRollbackApply' },
  ),
};

const compile = createValidatorCompiler();
type Validator = ReturnType<typeof compile> & { errors?: unknown[] | null };

/** A kind's body validator, compiled once. */
export const bodyValidator = (schema: TObject): Validator => compile(schema, 'body') as Validator;

const validators = Object.fromEntries(
  Object.entries(CHANGE_BODY_SCHEMAS).map(([kind, schema]) => [kind, bodyValidator(schema)]),
) as Record<BuiltinChangeKind, Validator>;

/** The change body checked against its route's schema: the route's own 400 (same paths, same messages). */
export function validateChangeBody(body: unknown, validate: Validator): void {
  if (validate(body)) return;
  throw toAppError(
    Object.assign(new Error('invalid change body'), {
      validation: validate.errors ?? [],
      validationContext: 'body',
    }) as never,
  );
}

export const builtinValidator = (kind: BuiltinChangeKind): Validator => validators[kind];

export interface ChangeEditDeps {
  rollbacks: RollbacksService;
  planOf: (userId: string, executor?: Executor) => Promise<Plan>;
  quotas: Record<Plan, QuotaSet>;
}

/** The edit a change makes to `current`: what its direct route would compute. */
export async function editFor(
  deps: ChangeEditDeps,
  executor: Executor,
  target: EnvironmentTarget & { ownerUserId: string },
  current: CurrentConfig,
  change: { kind: BuiltinChangeKind; body: Record<string, unknown> },
): Promise<ConfigEdit<unknown>> {
  const body = change.body;
  switch (change.kind) {
    case 'flag.patch': {
      const { key, op, ...fields } = body as { key: string; op?: FlagPatchOp } & FlagFields;
      const exists = Object.prototype.hasOwnProperty.call(current.state.flags, key);
      const flagLimit = exists ? Infinity : deps.quotas[await deps.planOf(target.ownerUserId, executor)].flags;
      return patchFlag(current.state, { key, op: op ?? 'upsert', fields }, { now: nowIso(), flagLimit });
    }
    case 'flag.delete':
      return deleteFlag(current.state, (body as { key: string }).key);
    case 'bulk.apply':
      return { ...bulkApply(current.state, body as BulkChanges, nowIso()), resourceId: target.envId };
    case 'rollback.apply':
      return deps.rollbacks.edit(
        executor,
        target,
        current,
        body as { targetVersion: number; scope?: RollbackScopeInput; planDigest: string; reason?: string },
      );
  }
}
