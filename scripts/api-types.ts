// The API's request and response types for the CLI and the console, generated from the OpenAPI
// document the server serves (ARCHITECTURE.md: neither can drift from the API). `npm run
// generate:api-types` writes src/api-types/: the shapes several operations use as named components
// (api-types/shared-components.ts), in files of at most 500 lines by route group (api-types/files.ts,
// decision 0059); test/e2e/cli-api-types.test.ts fails when the committed files are not what this
// renders today.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { OpenAPI3 } from 'openapi-typescript';
import { buildApp } from '../src/app.js';
import { DEFAULT_HTTP_SETTINGS, PLANS, type EnsignConfig } from '../src/config.js';
import { createDb } from '../src/db/create-db.js';
import { renderFiles } from './api-types/files.js';
import { withSharedComponents } from './api-types/shared-components.js';

/** The generated types, shared by the CLI and the console: routes/ by route group, components/ by domain, an index. */
export const API_TYPES_DIR = resolve(import.meta.dirname, '../src/api-types');

/** The document GET /openapi.json answers, from an app built in-process on an empty in-memory database. */
export async function servedOpenApiDocument(): Promise<OpenAPI3> {
  const handle = createDb('sqlite://:memory:');
  const quota = { configSyncs: 1, apps: 1, flags: 1 };
  const config: EnsignConfig['quotas'] = Object.fromEntries(
    PLANS.map((p) => [p, { ...quota }]),
  ) as EnsignConfig['quotas'];
  const app = await buildApp({
    db: handle.db,
    dbHandle: handle,
    config: {
      secret: 'api-types-api-types-api-types-api-types',
      quotas: config,
      defaultPlan: 'free',
      logLevel: 'silent',
      http: DEFAULT_HTTP_SETTINGS,
    },
  });
  try {
    await app.ready();
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    if (res.statusCode !== 200) throw new Error(`GET /openapi.json answered ${res.statusCode}`);
    return res.json() as OpenAPI3;
  } finally {
    await app.close();
    await handle.close();
  }
}

/** The files of src/api-types/ for the current route schemas, by path relative to it. */
export async function renderApiTypes(): Promise<Map<string, string>> {
  return renderFiles(withSharedComponents(await servedOpenApiDocument()));
}

/** Writes src/api-types/, replacing what is there. */
export async function writeApiTypes(): Promise<void> {
  rmSync(API_TYPES_DIR, { recursive: true, force: true });
  mkdirSync(API_TYPES_DIR, { recursive: true });
  for (const [name, text] of await renderApiTypes()) {
    mkdirSync(dirname(join(API_TYPES_DIR, name)), { recursive: true });
    writeFileSync(join(API_TYPES_DIR, name), text);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await writeApiTypes();
  console.log(`wrote ${API_TYPES_DIR}`);
}
