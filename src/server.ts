// The server: open storage, migrate, build the app, listen, close gracefully. Started through
// main.ts (`npm start`, `ensign serve`), which imports this module once the young generation is held.
import { buildApp } from './app.js';
import { loadConfig, type EnsignConfig } from './config.js';
import { createDb } from './db/create-db.js';
import { migrateToLatest } from './db/migrate.js';
import { checkSecretFingerprint } from './platform/secret-fingerprint.js';

export interface StartOptions {
  /** Stop gracefully on SIGTERM/SIGINT and exit the process (the CLI and `npm start`; not tests). */
  handleSignals?: boolean;
}

export async function startServer(config: EnsignConfig = loadConfig(), options: StartOptions = {}) {
  const handle = createDb(config.databaseUrl);
  await migrateToLatest(handle.db);
  try {
    await checkSecretFingerprint(handle.db, config.secret);
  } catch (err) {
    await handle.close();
    throw err;
  }
  const app = await buildApp({ db: handle.db, dbHandle: handle, config });
  await app.ready();
  const address = await app.listen({ host: config.host, port: config.port });
  app.log.info({ address, database: handle.dialect, dataDir: config.dataDir }, `Ensign listening on ${address}`);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    const graceMs = config.http.shutdownGraceMs;
    app.log.info({ signal, graceMs }, 'shutting down: no new connections, finishing in-flight requests');
    // Requests still unfinished after the grace period (slow bodies, open streams) lose their
    // connection, so the close below can finish: counters flushed, database closed, exit 0.
    const grace = setTimeout(() => {
      app.log.warn({ graceMs }, 'grace period over: closing the remaining connections');
      app.server.closeAllConnections();
    }, graceMs);
    grace.unref();
    // Only if closing itself hangs (a database that never answers).
    const force = setTimeout(() => process.exit(1), graceMs + 15_000);
    force.unref();
    try {
      await app.close();
      clearTimeout(grace);
      await handle.close();
      app.log.info('stopped');
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  if (options.handleSignals) {
    process.once('SIGTERM', () => void shutdown('SIGTERM'));
    process.once('SIGINT', () => void shutdown('SIGINT'));
  }
  return { app, handle, address };
}
