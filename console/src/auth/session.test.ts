import { beforeEach, describe, expect, test } from 'vitest';

/** A sessionStorage for Node. */
class MemoryStorage {
  private items = new Map<string, string>();
  get length() {
    return this.items.size;
  }
  key(i: number) {
    return [...this.items.keys()][i] ?? null;
  }
  getItem(k: string) {
    return this.items.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.items.set(k, v);
    Object.defineProperty(this, k, { value: v, enumerable: true, configurable: true });
  }
  removeItem(k: string) {
    this.items.delete(k);
    delete (this as Record<string, unknown>)[k];
  }
  clear() {
    for (const k of [...this.items.keys()]) this.removeItem(k);
  }
}

describe('the session', () => {
  beforeEach(() => {
    (globalThis as Record<string, unknown>).sessionStorage = new MemoryStorage();
  });

  test('kept in sessionStorage, cleared with everything the tab kept for it', async () => {
    const { clearSession, getSession, playgroundKey, rememberPlaygroundKey, setSession, onSessionChange } =
      await import('./session');
    let changes = 0;
    onSessionChange(() => changes++);
    setSession({
      token: 'cli_x',
      email: 'a@example.com',
      userId: 'usr_1',
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    rememberPlaygroundKey('env_1', 'sdk_y');
    expect(getSession()?.token).toBe('cli_x');
    expect(JSON.parse(sessionStorage.getItem('ensign.session')!).token).toBe('cli_x');
    expect(playgroundKey('env_1')).toBe('sdk_y');
    clearSession();
    expect(getSession()).toBeNull();
    expect(sessionStorage.getItem('ensign.session')).toBeNull();
    expect(playgroundKey('env_1')).toBeNull();
    expect(changes).toBe(2);
  });

  test('an expired session is no session', async () => {
    const { getSession, setSession } = await import('./session');
    setSession({
      token: 'cli_x',
      email: 'a@example.com',
      userId: 'usr_1',
      expiresAt: new Date(Date.now() - 1).toISOString(),
    });
    expect(getSession()).toBeNull();
  });
});
