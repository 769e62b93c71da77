// The benchmark servers' settings: quotas no benchmark reaches, a fixed secret. A module of its own,
// importing no part of the app, so that a benchmark server process loads the app only through
// startServer, as `npm start` does (src/main.ts holds the young generation while it does).
import type { EnsignConfig } from '../src/config.js';

export function benchConfig(): Pick<EnsignConfig, 'secret' | 'quotas' | 'defaultPlan' | 'logLevel'> {
  const quota = { configSyncs: 1_000_000_000, apps: 1000, flags: 10_000 };
  return {
    secret: 'bench-secret-bench-secret-bench-secret-0',
    quotas: { free: quota, pro: quota },
    defaultPlan: 'free',
    logLevel: process.env.ENSIGN_LOG_LEVEL ?? 'info',
  };
}
