// The Fastify hooks the fast lane (fast-lane.ts) does itself. A hook that runs on a lane route must
// be declared here by whoever adds it, with what the lane does in its place; the lane checks every
// lane route's hooks when the app is built and refuses to start on one it does not know, so a hook
// added later (rate limiting, tracing) cannot silently skip the hottest routes.
import type { FastifyInstance } from 'fastify';

export const LIFECYCLE_HOOKS = [
  'onTimeout', 'onRequest', 'preParsing', 'preValidation', 'preSerialization', 'preHandler', 'onSend', 'onResponse', 'onError', 'onRequestAbort',
] as const;
export type LifecycleHook = (typeof LIFECYCLE_HOOKS)[number];

/** Measures a lane answer as the hook would have: `startedAt` is `performance.now()` at arrival. */
export type LaneObserver = (method: string, status: number, startedAt: number) => void;

export interface LaneHookPart {
  /** Named in the lane's refusal to start, and in logs. */
  name: string;
  /** Headers the hook adds to every answer, which the lane adds to its own. */
  headers?: Record<string, string>;
  /** What the hook records about each answer, made once per lane route (`url` is its pattern). */
  observer?: (url: string) => LaneObserver;
}

type Hook = Function;

const parts = new WeakMap<Hook, LaneHookPart>();

/** Declares that the fast lane does what `hook` does (as `part` says); returns the hook. */
export function implementedByLane<F extends Hook>(hook: F, part: LaneHookPart): F {
  parts.set(hook, part);
  return hook;
}

export function laneHookPartOf(hook: Hook): LaneHookPart | undefined {
  return parts.get(hook);
}

/**
 * The lifecycle hooks a scope runs on its routes. Fastify keeps them under a private symbol; it has
 * no public accessor, so this reads it and fails loudly if a Fastify upgrade moves it.
 */
export function scopeHooksOf(scope: FastifyInstance): Record<LifecycleHook, Hook[]> {
  const symbol = Object.getOwnPropertySymbols(scope).find((s) => s.description === 'fastify.hooks')
    ?? Object.getOwnPropertySymbols(Object.getPrototypeOf(scope)).find((s) => s.description === 'fastify.hooks');
  const hooks = symbol === undefined ? undefined : (scope as unknown as Record<symbol, Record<string, unknown>>)[symbol];
  if (hooks === undefined || !LIFECYCLE_HOOKS.every((name) => Array.isArray(hooks[name]))) {
    throw new Error('cannot read the hooks of a Fastify scope (has Fastify changed?): the fast lane cannot check its routes');
  }
  return hooks as Record<LifecycleHook, Hook[]>;
}
