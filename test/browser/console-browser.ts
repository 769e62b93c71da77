// The browser side of the console tests: Debian's Chromium driven by playwright-core against a real
// server on a temporary SQLite data directory, axe on every screen, screenshots under test-output/.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { DEFAULT_CONSOLE_DIR } from '../../src/platform/console-static.js';
import type { EnsignConfig } from '../../src/config.js';
import { startTestServer, type StartedServer } from '../helpers/e2e-server.js';
import type { TestContext } from '../helpers/test-app.js';
import { launchChromium } from './chromium.js';

export const SCREENSHOTS = fileURLToPath(new URL('../../test-output/console/', import.meta.url));

export interface ConsoleSession {
  server: StartedServer;
  browser: Browser;
  base: string;
  /** A new signed-out browser context (its own sessionStorage) with a page. */
  newPage(options?: { width?: number; height?: number }): Promise<{ context: BrowserContext; page: Page }>;
}

/** Starts a server serving the built console and a Chromium, both closed when the test ends. */
export async function startConsole(
  t: TestContext,
  name: string,
  overrides: Partial<EnsignConfig> = {},
): Promise<ConsoleSession> {
  assert.ok(
    existsSync(join(DEFAULT_CONSOLE_DIR, 'index.html')),
    'the console is not built: run `npm run build` (npm test builds it before the browser tests)',
  );
  const server = await startTestServer(t, name, overrides);
  const browser = await launchChromium();
  t.after(() => browser.close());
  const base = `${server.address}/console`;
  return {
    server,
    browser,
    base,
    async newPage(options = {}) {
      const context = await browser.newContext({
        viewport: { width: options.width ?? 1280, height: options.height ?? 860 },
        baseURL: server.address,
      });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.address });
      const page = await context.newPage();
      watchPage(page);
      return { context, page };
    },
  };
}

/** Every page error, console error and CSP violation fails the test that caused it. */
export const pageProblems = new WeakMap<Page, string[]>();

function watchPage(page: Page) {
  const problems: string[] = [];
  pageProblems.set(page, problems);
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    // A refused request (a 4xx the test provokes) is logged by the browser as an error: not a problem of the page.
    if (
      msg.type() === 'error' &&
      !/Failed to load resource: the server responded with a status of 4\d\d/.test(msg.text())
    )
      problems.push(`console error: ${msg.text()}`);
  });
}

export function assertNoProblems(page: Page) {
  assert.deepEqual(pageProblems.get(page) ?? [], [], 'the page logged errors');
}

/** axe on the page as it is: no serious or critical violation. */
export async function checkAccessibility(page: Page, screen: string) {
  // Legacy mode runs axe.run() in the page itself. The default runs it per frame and then opens a
  // blank page to merge the frames' results: a new page per check, three times the time (22.9 s
  // against 7.7 s of console-flows' 55 s), for iframes the console does not have.
  const results = await new AxeBuilder({ page })
    .setLegacyMode()
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
    .analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(' '))
          .join(', ')}`,
    ),
    [],
    `axe on ${screen}`,
  );
}

/** A screenshot of the page under test-output/console/<name>.png. */
export async function screenshot(page: Page, name: string) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** axe and a screenshot of one screen, once its heading is shown. */
export async function visitScreen(page: Page, name: string, heading: RegExp | string) {
  await page.getByRole('heading', { level: 1, name: heading }).first().waitFor();
  await page
    .locator('[role="status"]:has-text("Loading")')
    .first()
    .waitFor({ state: 'detached', timeout: 10_000 })
    .catch(() => undefined);
  await checkAccessibility(page, name);
  await screenshot(page, name);
}

export async function signUp(page: Page, base: string, email: string, password = 'correct horse battery') {
  await page.goto(`${base}/sign-up`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.getByRole('heading', { level: 1, name: 'Apps' }).waitFor();
}

/** What the page's clipboard holds (the context was granted clipboard access). */
export async function clipboardText(page: Page): Promise<string> {
  return (await page.evaluate('navigator.clipboard.readText()')) as string;
}

/** The token of the console's session in the tab, or null. */
export async function sessionToken(page: Page): Promise<string | null> {
  return (await page.evaluate("JSON.parse(sessionStorage.getItem('ensign.session') ?? 'null')?.token ?? null")) as
    string | null;
}
