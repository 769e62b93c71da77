// The Fastify hooks the fast lane (fast-lane.ts) does itself. A hook that runs on a lane route must
// be declared here by whoever adds it, with what the lane does in its place; the lane checks every
// lane route's hooks when the app is built and refuses to start on one it does not know, so a hook
// added later (rate limiting, tracing) cannot silently skip the hottest routes.
import type { FastifyInstance } from 'fastify';

export const LIFECYCLE_HOOKS = [
  'onTimeout',
  'onRequest',
  'preParsing',
  'preValidation',
  'preSerialization',
  'preHandler',
  'onSend',
  'onResponse',
  'onError',
  'onRequestAbort',
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

/** The hooks added to each scope (a Fastify instance or one of its encapsulated children). */
const added = new WeakMap<object, { name: LifecycleHook; hook: Hook }[]>();
const watched = new WeakSet<object>();

/**
 * Records every lifecycle hook added to `root` and to the scopes under it, through Fastify's public
 * `addHook` (a child scope is made from its parent with Object.create, so it calls this wrapper too;
 * plugins without encapsulation add theirs to the parent). Called as soon as the instance exists,
 * before any hook is added: `watchesHooks` tells whether it was.
 */
export function watchHooks(root: FastifyInstance): void {
  const addHook = root.addHook as unknown as (this: FastifyInstance, name: string, hook: Hook) => FastifyInstance;
  (root as { addHook: unknown }).addHook = function recordedAddHook(this: FastifyInstance, name: string, hook: Hook) {
    if ((LIFECYCLE_HOOKS as readonly string[]).includes(name)) {
      const list = added.get(this) ?? [];
      list.push({ name: name as LifecycleHook, hook });
      added.set(this, list);
    }
    return addHook.call(this, name, hook);
  };
  watched.add(root);
}

export const watchesHooks = (root: FastifyInstance) => watched.has(root);

/**
 * The lifecycle hooks that may run on a scope's routes: those added to it and to every scope above
 * it. Fastify copies a parent's hooks when it loads a child, so a hook added to the parent after
 * that is listed here although it does not run there: the list errs on the side of refusing.
 * Sibling scopes (a plugin under another prefix, the console's) are not above it: their hooks never
 * reach the lane's routes, and are not listed.
 */
export function scopeHooksOf(scope: FastifyInstance): Record<LifecycleHook, Hook[]> {
  const hooks = Object.fromEntries(LIFECYCLE_HOOKS.map((name) => [name, [] as Hook[]])) as Record<
    LifecycleHook,
    Hook[]
  >;
  const chain: object[] = [];
  for (let s: object | null = scope; s !== null; s = Object.getPrototypeOf(s) as object | null) chain.unshift(s);
  for (const s of chain) for (const { name, hook } of added.get(s) ?? []) hooks[name].push(hook);
  return hooks;
}
