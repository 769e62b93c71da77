// The one access check every management route makes before touching an app's resources: does the
// app exist (404), may this principal reach it (403), and does it hold the permission the route
// needs (403). The apps module implements it; other modules receive it, so none of them reaches into
// the apps or members tables, and roles, scoped tokens and keys are decided in one place.
import type { Executor } from '../db/transaction.js';
import type { Principal } from './principal.js';

/** What the authority workflow speaks of (issue 9): every route needs one of these or an owner action. */
export const CAPABILITIES = ['read', 'change', 'propose', 'approve', 'execute'] as const;
export type Capability = (typeof CAPABILITIES)[number];

/**
 * Actions only an app's owners may take (on top of the five capabilities): managing members,
 * setting environment policy, and issuing admin keys or revoking keys. An admin key keeps `keys`
 * (it always could manage its app's keys); members and policy need a person.
 */
export const OWNER_ACTIONS = ['members', 'policy', 'keys'] as const;
export type OwnerAction = (typeof OWNER_ACTIONS)[number];

export type Permission = Capability | OwnerAction;

export const ROLES = ['owner', 'editor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export interface AppRef {
  id: string;
  /** The creator: the app's quotas follow this user's plan. */
  ownerUserId: string;
  slug: string;
  /** The caller's role in the app; null for keys. */
  role: Role | null;
}

export interface EnvRef {
  id: string;
  appId: string;
  slug: string;
  name: string;
  /** Distinct approvals a change needs through the authority workflow; 0 = direct writes allowed. */
  requiredApprovals: number;
}

/**
 * Inside a transaction pass its executor: on SQLite one connection serves everything, so a query
 * outside the open transaction would wait for it forever.
 */
export interface AppAccess {
  /** The app if the principal may do `need` in it: 404 when it does not exist, 403 otherwise. */
  requireApp(principal: Principal, appId: string, need: Permission, executor?: Executor): Promise<AppRef>;
  /** The app and one of its environments (slug or alias), with the same checks (scoped tokens may be limited to some environments). */
  requireEnv(
    principal: Principal,
    appId: string,
    env: string,
    need: Permission,
    executor?: Executor,
  ): Promise<{ app: AppRef; env: EnvRef }>;
}
