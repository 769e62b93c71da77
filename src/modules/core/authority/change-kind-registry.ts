// Which change kinds a proposal may carry: core's own (change-edits.ts) and those registered by the
// modules above core at composition time (change-kinds.ts, decision 0029). Registration closes once
// the routes have read every kind's body schema, so the OpenAPI document never misses a kind.
import type { TObject } from '@sinclair/typebox';
import { notFound } from '../../../platform/errors.js';
import { CHANGE_KINDS, type BuiltinChangeKind, type ProposedChange } from './authority.model.js';
import { bodyValidator, builtinValidator, CHANGE_BODY_SCHEMAS, validateChangeBody } from './change-edits.js';
import type { ChangeKindHandler } from './change-kinds.js';

export interface ChangeKindRegistry {
  /** The registered handler of a kind; undefined for core's own kinds. */
  handlerOf(kind: string): ChangeKindHandler | undefined;
  /** Checks a change's body against its kind's schema (400), or answers 404 for an unknown kind. */
  validate(change: ProposedChange): void;
  register(...handlers: ChangeKindHandler[]): void;
  changeBodies(): Record<string, TObject>;
}

export const isBuiltin = (kind: string): kind is BuiltinChangeKind =>
  (CHANGE_KINDS as readonly string[]).includes(kind);

export function createChangeKindRegistry(): ChangeKindRegistry {
  const handlers = new Map<string, { handler: ChangeKindHandler; validate: ReturnType<typeof bodyValidator> }>();
  let sealed = false;

  return {
    handlerOf: (kind) => handlers.get(kind)?.handler,

    validate(change) {
      if (isBuiltin(change.kind)) return validateChangeBody(change.body, builtinValidator(change.kind));
      const registered = handlers.get(change.kind);
      if (!registered) throw notFound(`Change kind ${change.kind}`);
      validateChangeBody(change.body, registered.validate);
    },

    register(...added) {
      if (sealed) throw new Error('change kinds are registered before the authority routes are built');
      for (const handler of added) {
        if (isBuiltin(handler.kind) || handlers.has(handler.kind))
          throw new Error(`change kind ${handler.kind} is registered twice`);
        handlers.set(handler.kind, { handler, validate: bodyValidator(handler.body) });
      }
    },

    changeBodies() {
      sealed = true;
      return {
        ...CHANGE_BODY_SCHEMAS,
        ...Object.fromEntries([...handlers].map(([kind, h]) => [kind, h.handler.body])),
      };
    },
  };
}
