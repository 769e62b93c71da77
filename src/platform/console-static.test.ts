// /console: the built console's files with a strict CSP, immutable hashed assets, index.html for
// client routes, a clear 404 without a build; the API, the OpenAPI document and the fast lane untouched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTestApp } from '../../test/helpers/test-app.js';
import { CONSOLE_CSP } from './console-static.js';

function fakeBuild(t: { after(fn: () => unknown): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'ensign-console-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><title>Ensign console</title><script type="module" src="/console/assets/index-Ab12Cd34.js"></script>',
  );
  writeFileSync(join(dir, 'assets', 'index-Ab12Cd34.js'), 'console.log("console");');
  writeFileSync(join(dir, 'assets', '.hidden'), 'secret');
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('a built console: index.html for /console and every client route, hashed assets cached immutably, a strict CSP on each', async (t) => {
  const { app } = await buildTestApp(t, { dialect: 'sqlite', consoleDir: fakeBuild(t) });
  for (const url of ['/console', '/console/', '/console/apps/app_1/prod/flags', '/console/sign-in?next=%2Fapps']) {
    const res = await app.inject({ method: 'GET', url });
    assert.equal(res.statusCode, 200, url);
    assert.match(res.headers['content-type'] as string, /^text\/html/);
    assert.match(res.body, /<title>Ensign console<\/title>/);
    assert.equal(res.headers['cache-control'], 'no-cache', 'the page is revalidated, so a new build is picked up');
    assert.equal(res.headers['content-security-policy'], CONSOLE_CSP);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['x-frame-options'], 'DENY');
  }
  assert.match(CONSOLE_CSP, /script-src 'self'(;|$)/, 'no inline script, no other origin');
  assert.doesNotMatch(CONSOLE_CSP, /unsafe-eval|script-src[^;]*unsafe-inline/);

  const asset = await app.inject({ method: 'GET', url: '/console/assets/index-Ab12Cd34.js' });
  assert.equal(asset.statusCode, 200);
  assert.match(asset.headers['content-type'] as string, /javascript/);
  assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.equal(asset.headers['content-security-policy'], CONSOLE_CSP);
  assert.equal(asset.body, 'console.log("console");');
  const head = await app.inject({ method: 'HEAD', url: '/console/assets/index-Ab12Cd34.js' });
  assert.equal(head.statusCode, 200);

  // Nothing outside the assets folder, and no dotfile, is served as a file.
  for (const url of ['/console/assets/.hidden', '/console/assets/..%2f..%2f..%2fpackage.json']) {
    const refused = await app.inject({ method: 'GET', url });
    assert.ok([400, 403, 404].includes(refused.statusCode), `${url}: ${refused.statusCode}`);
    assert.doesNotMatch(refused.body, /secret|"name": "ensign"|<title>/, url);
  }
  const missing = await app.inject({ method: 'GET', url: '/console/assets/index-missing.js' });
  assert.equal(missing.statusCode, 404, 'a missing asset is not answered with the page');
  assert.equal(missing.json().error.code, 'not_found');

  // The API is untouched: no console header on it, no console path in the OpenAPI document.
  const health = await app.inject({ method: 'GET', url: '/healthz' });
  assert.equal(health.statusCode, 200);
  assert.equal(health.headers['content-security-policy'], undefined);
  const unknown = await app.inject({ method: 'GET', url: '/consoles' });
  assert.equal(unknown.statusCode, 404);
  assert.equal(unknown.headers['content-security-policy'], undefined);
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
  assert.deepEqual(
    Object.keys(doc.paths).filter((p: string) => p.startsWith('/console')),
    [],
  );
  // The fast lane started (it refuses to when a lane route meets a hook it does not implement).
  assert.ok(app.fastLane.routes().length > 0);
  assert.ok(app.fastLane.routes().every((r) => !r.url.startsWith('/console')));
});

test('a server built without the console answers /console with a 404 that says how to build it', async (t) => {
  const empty = mkdtempSync(join(tmpdir(), 'ensign-console-none-'));
  t.after(() => rmSync(empty, { recursive: true, force: true }));
  for (const consoleDir of [null, empty]) {
    const { app } = await buildTestApp(t, { dialect: 'sqlite', consoleDir });
    for (const url of ['/console', '/console/', '/console/apps', '/console/assets/index.js']) {
      const res = await app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 404, url);
      assert.equal(res.json().error.code, 'not_found');
      assert.match(res.json().error.message, /web console is not part of this build/);
      assert.match(res.json().error.resolution, /npm run build/);
    }
    assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
  }
});
