// Debian's Chromium as the browser tests launch it (playwright-core with executablePath: the
// Playwright browser download cannot work here; .ci/run installs the `chromium` package).
import { existsSync } from 'node:fs';
import assert from 'node:assert/strict';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.ENSIGN_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchChromium(): Promise<Browser> {
  assert.ok(
    existsSync(CHROMIUM),
    `no Chromium at ${CHROMIUM}: install it (apt-get install -y chromium), as .ci/run does`,
  );
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}
