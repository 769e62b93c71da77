// A real Ensign server for end-to-end tests: started in-process on a free port with its own SQLite
// data directory, closed and removed when the test ends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { startServer } from '../../src/main.js';
import type { EnsignConfig } from '../../src/config.js';
import { testConfig, type TestContext } from './test-app.js';

export interface StartedServer {
  app: FastifyInstance;
  address: string;
  dir: string;
}

export async function startTestServer(
  t: TestContext,
  name: string,
  overrides: Partial<EnsignConfig> = {},
): Promise<StartedServer> {
  const dir = mkdtempSync(join(tmpdir(), `ensign-${name}-`));
  const dataDir = join(dir, 'data');
  const { app, handle, address } = await startServer(
    testConfig({ dataDir, databaseUrl: `sqlite://${join(dataDir, 'ensign.db')}`, port: 0, ...overrides }),
  );
  t.after(async () => {
    await app.close();
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { app, address, dir };
}
