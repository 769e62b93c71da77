// The signed-in session: the cli_ token from POST /api/v1/cli-token, kept in memory and in
// sessionStorage (this tab only, gone when it closes); never in a cookie. Cleared on sign-out and on
// any 401, after which the console asks to sign in again.
export interface Session {
  token: string;
  email: string;
  userId: string;
  expiresAt: string;
}

const KEY = 'ensign.session';
let current: Session | null = null;
const listeners = new Set<() => void>();

function storage(): Storage | null {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage;
  } catch {
    return null;
  }
}

function read(): Session | null {
  const raw = storage()?.getItem(KEY);
  if (!raw) return null;
  try {
    const parsed = JSON.parse(raw) as Partial<Session>;
    if (
      typeof parsed.token === 'string' &&
      typeof parsed.email === 'string' &&
      typeof parsed.userId === 'string' &&
      typeof parsed.expiresAt === 'string'
    ) {
      return parsed as Session;
    }
  } catch {
    // A damaged entry is no session.
  }
  storage()?.removeItem(KEY);
  return null;
}

current = read();

export function getSession(): Session | null {
  if (current && Date.parse(current.expiresAt) <= Date.now()) clearSession();
  return current;
}

export function setSession(session: Session): void {
  current = session;
  storage()?.setItem(KEY, JSON.stringify(session));
  for (const listener of listeners) listener();
}

/** Forgets the token (and everything the tab kept for it). */
export function clearSession(): void {
  const had = current !== null;
  current = null;
  const store = storage();
  if (store) {
    for (const name of Object.keys(store)) if (name.startsWith('ensign.')) store.removeItem(name);
  }
  if (had) for (const listener of listeners) listener();
}

export function onSessionChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Environment keys the playground may use, per environment id: kept for this tab's session only. */
export function rememberPlaygroundKey(envId: string, token: string): void {
  storage()?.setItem(`ensign.playground.${envId}`, token);
}

export function playgroundKey(envId: string): string | null {
  return storage()?.getItem(`ensign.playground.${envId}`) ?? null;
}
