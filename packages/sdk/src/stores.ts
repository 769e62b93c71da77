// Where the last good document is kept between runs, so a restart serves it at once and costs the
// server one 304. A store holds text by name; the client names it after the service URL and key.
// Browsers default to localStorage; Node uses fileStore from '@ensign/sdk/file-store'.

/** The part of the Web Storage API the store uses (localStorage, sessionStorage, or a look-alike). */
export interface TextStorage {
  getItem(name: string): string | null;
  setItem(name: string, value: string): void;
}

export interface DocumentStore {
  /** The text saved under `name`, or null. May be asynchronous. */
  load(name: string): string | null | Promise<string | null>;
  save(name: string, text: string): void | Promise<void>;
}

/** A store in `storage` (default: the page's localStorage). Null when there is none, or when the
 * page may not use it (a sandboxed frame, some private modes throw on access). */
export function localStorageStore(storage?: TextStorage): DocumentStore | null {
  let target = storage;
  try {
    target ??= (globalThis as { localStorage?: TextStorage }).localStorage;
  } catch {
    return null;
  }
  if (target === undefined) return null;
  const chosen = target;
  return {
    load: (name) => chosen.getItem(name),
    save: (name, text) => {
      try {
        chosen.setItem(name, text);
      } catch {
        // Quota exceeded or storage disabled: the document is simply not kept.
      }
    },
  };
}

/** A store name for a service URL and key: a hash, so the key itself is never written out. */
export function storeName(url: string, key: string): string {
  let h = 0x811c9dc5;
  const text = `${url}\n${key}`;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return `ensign.core-v1.${(h >>> 0).toString(36)}`;
}
