// `@ensign/sdk/file-store`: the Node store, a JSON file per client in a folder. Its own entry, so no
// Node module ever reaches a browser bundle. Writes go to a temporary file renamed into place, so a
// crash mid-write leaves the previous document.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DocumentStore } from './stores.js';

export function fileStore(directory: string): DocumentStore {
  return {
    async load(name) {
      try {
        return await readFile(join(directory, `${name}.json`), 'utf8');
      } catch {
        return null;
      }
    },
    async save(name, text) {
      const path = join(directory, `${name}.json`);
      const temporary = `${path}.${process.pid}.tmp`;
      await mkdir(directory, { recursive: true });
      await writeFile(temporary, text);
      await rename(temporary, path);
    },
  };
}
