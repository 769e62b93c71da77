// Reads one flag with the environment's version: a server-side search for its key, walking the
// pages until the exact key (keys containing it come sorted, so it is found in order).
import { api, unwrap } from './client';
import type { FlagRecord } from './hooks';

export async function fetchFlag(
  appId: string,
  env: string,
  key: string,
): Promise<{ flag: FlagRecord | null; version: number }> {
  let cursor: string | undefined;
  for (;;) {
    const page = await unwrap(
      api.GET('/api/v1/flags', {
        params: { query: { appId, env, q: key, limit: 500, ...(cursor ? { cursor } : {}) } },
      }),
    );
    const flag = page.flags.find((f) => f.key === key);
    if (flag || !page.nextCursor) return { flag: flag ?? null, version: page.version };
    cursor = page.nextCursor;
  }
}
