// Process entry (`npm start`; `ensign serve` and the benchmarks call startServer): the server's
// modules (server.ts and the ~1,600 it imports) are loaded only once the young generation is held
// at its initial size, since loading them is most of what starting allocates (decision 0065); it is
// released once the server listens. The old generation's growth between full collections is bounded
// for the process's life (decision 0070).
import { pathToFileURL } from 'node:url';
import { loadConfig, type EnsignConfig } from './config.js';
import { boundOldGenerationGrowth } from './platform/old-generation-growth.js';
import { holdYoungGeneration } from './platform/startup-heap.js';
import type { StartOptions } from './server.js';

export type { StartOptions } from './server.js';

export async function startServer(config: EnsignConfig = loadConfig(), options: StartOptions = {}) {
  boundOldGenerationGrowth();
  const release = holdYoungGeneration();
  try {
    const server = await import('./server.js');
    return await server.startServer(config, options);
  } finally {
    release();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  startServer(loadConfig(), { handleSignals: true }).catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
