// The examples (examples/) as a user runs them: each is type-checked against the packages'
// published types (their build, as after `npm install`), then run against a started Ensign server:
// the Node service as its own process (answers, a change through the stream, an outcome event, and
// an exit on its own after SIGTERM), the static page bundled as its `npm run build` does and opened
// in Debian's Chromium.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { build } from 'esbuild';
import { startEnsign } from './openfeature.fixtures.js';
import { ROOT } from '../helpers/child-process.js';
import { serveStaticSite } from '../helpers/static-site.js';
import { launchChromium } from '../browser/chromium.js';
import { waitFor } from '../helpers/polling.js';

const EXAMPLES = join(ROOT, 'examples');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

function assertPackagesBuilt() {
  for (const name of ['engine', 'sdk', 'openfeature-web']) {
    assert.ok(
      existsSync(join(ROOT, 'packages', name, 'dist', 'esm', 'index.js')),
      `packages/${name} is not built: run \`npm run build:packages\` (npm test builds it first)`,
    );
  }
}

for (const example of ['node-service', 'browser-page']) {
  test(`examples/${example} type-checks against the packages' published types`, () => {
    assertPackagesBuilt();
    const result = spawnSync(process.execPath, [tsc, '-p', join(EXAMPLES, example, 'tsconfig.json')], {
      encoding: 'utf8',
    });
    assert.equal(result.status, 0, result.stdout + result.stderr);
  });
}

test('examples/node-service answers from local evaluation, follows a change, sends an outcome and exits on its own after SIGTERM', async (t) => {
  assertPackagesBuilt();
  const ensign = await startEnsign(t);
  const store = mkdtempSync(join(tmpdir(), 'ensign-example-store-'));
  t.after(() => rmSync(store, { recursive: true, force: true }));
  const child = spawn(process.execPath, ['server.mjs'], {
    cwd: join(EXAMPLES, 'node-service'),
    env: {
      PATH: process.env.PATH,
      ENSIGN_URL: ensign.address,
      ENSIGN_SDK_KEY: ensign.sdk,
      ENSIGN_STORE_DIR: store,
      PORT: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  await waitFor(() => /listening on http:\/\/127\.0\.0\.1:\d+/.test(out) || child.exitCode !== null, 30_000);
  assert.match(out, /flags from network/);
  const listening = out.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  assert.ok(listening, `the service did not start:\n${out}`);
  const service = listening[1]!;

  const checkout = async (query: string) =>
    (await (await fetch(`${service}/checkout?${query}`)).json()) as Record<string, unknown>;
  const beta = await checkout('user=user-1&plan=beta&country=NO');
  assert.deepEqual(
    { ...beta, version: typeof beta.version },
    { checkout: 'new', reason: 'TARGETING_MATCH', variant: null, darkMode: false, version: 'number' },
  );
  assert.equal((await checkout('user=user-1&plan=free')).checkout, 'classic');

  await ensign.setFlag({ key: 'dark-mode', value: true });
  await waitFor(async () => (await checkout('user=user-1')).darkMode === true, 10_000);
  await waitFor(() => /changed: dark-mode/.test(out), 5_000);

  assert.equal((await fetch(`${service}/purchase?user=user-1&amount=12.5`, { method: 'POST' })).status, 202);
  child.kill('SIGTERM');
  // No process.exit in the example: it ends because close() left nothing running.
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const { code, signal } = await exited;
  clearTimeout(timer);
  assert.deepEqual(
    { code, signal },
    { code: 0, signal: null },
    `the service did not exit on its own after SIGTERM:\n${out}`,
  );
  assert.match(out, /closed: 1 events delivered/);
  const kept = readdirSync(store);
  assert.equal(kept.length, 1, 'the last document was kept on disk');
  assert.match(readFileSync(join(store, kept[0]!), 'utf8'), /"schemaVersion":"core\/v1"/);
});

test('examples/browser-page, bundled as its build does, decides in Chromium: a plan switch with no request, a change through the stream', async (t) => {
  assertPackagesBuilt();
  const ensign = await startEnsign(t);
  const dir = join(EXAMPLES, 'browser-page');
  // `npm run build` of the example: esbuild app.js --bundle --minify --format=esm --target=es2022.
  const bundle = await build({
    entryPoints: [join(dir, 'app.js')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const site = await serveStaticSite(t, {
    '/': { type: 'text/html', body: readFileSync(join(dir, 'index.html'), 'utf8') },
    '/app.bundle.js': { type: 'text/javascript', body: bundle.outputFiles[0]!.text },
  });
  const browser = await launchChromium();
  t.after(() => browser.close());
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  const toEnsign: string[] = [];
  page.on('request', (request) => {
    if (request.url().startsWith(ensign.address)) toEnsign.push(new URL(request.url()).pathname);
  });
  await page.goto(`${site}?url=${encodeURIComponent(ensign.address)}&key=${encodeURIComponent(ensign.pub)}`);
  const text = (id: string) => page.locator(`#${id}`).textContent();
  await page.locator('#status', { hasText: 'READY' }).waitFor({ timeout: 15_000 });
  assert.equal(await text('checkout'), 'classic');
  assert.equal(await text('plan'), 'free');

  const before = toEnsign.length;
  await page.getByRole('button', { name: /Switch plan/ }).click();
  await page.locator('#plan', { hasText: 'beta' }).waitFor();
  assert.equal(await text('checkout'), 'new', 'the beta rule (plan beta, country NO) matched locally');
  assert.equal(await text('reason'), 'TARGETING_MATCH');
  assert.deepEqual(toEnsign.slice(before), [], 'no request for a context change');

  assert.equal(await page.evaluate('document.body.classList.contains("dark")'), false);
  await waitFor(() => toEnsign.some((p) => p === '/api/ofrep/v1/events'), 10_000);
  await ensign.setFlag({ key: 'dark-mode', value: true });
  await page.waitForFunction('document.body.classList.contains("dark")', undefined, { timeout: 10_000 });
  assert.deepEqual(problems, []);
});
