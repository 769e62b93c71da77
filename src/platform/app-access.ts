// The ownership check every management route makes before touching an app's resources. The apps
// module implements it; other modules receive it, so none of them reaches into the apps tables.
import type { Executor } from '../db/transaction.js';
import type { Principal } from './principal.js';

export interface AppRef {
  id: string;
  ownerUserId: string;
  slug: string;
}

export interface EnvRef {
  id: string;
  appId: string;
  slug: string;
  name: string;
}

/**
 * Inside a transaction pass its executor: on SQLite one connection serves everything, so a query
 * outside the open transaction would wait for it forever.
 */
export interface AppAccess {
  /** The app if the principal may manage it: 404 when it does not exist, 403 when it is not theirs. */
  requireApp(principal: Principal, appId: string, executor?: Executor): Promise<AppRef>;
  /** The app and one of its environments (slug or alias), with the same checks. */
  requireEnv(principal: Principal, appId: string, env: string, executor?: Executor): Promise<{ app: AppRef; env: EnvRef }>;
}
