// Shared set-up for the end-to-end tests: the system Chromium driven by
// playwright-core (never `npx playwright install`: nothing is downloaded).
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/// The value of an environment variable the tests need; unset, the test
/// file fails at once and says how to run it (never a silent skip).
export function need(name) {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set: the end-to-end tests run through \`cargo xtask test\`, which builds the CLI and starts the loopback providers they use`);
  }
  return value;
}

export const BASE_URL = process.env.E2E_BASE_URL ?? 'http://127.0.0.1:8080/';
export const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), 'artifacts');

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export async function launch() {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
  });
}

/**
 * A browser with a profile of its own on disk, as a person's browser is:
 * `launch()`'s contexts are off the record, where Chromium keeps OPFS in
 * memory and every sync-access-handle call is a round trip to the browser
 * process (a quarter of a millisecond; reading a 66 MB store in 8 KB pages
 * there takes 2 s against 13 ms on disk). The profile is a temporary
 * directory Playwright makes and removes (on close, and when the process
 * is ended). Returns the persistent context; its first page is open.
 */
export async function launchProfile({ viewport = { width: 1400, height: 900 } } = {}) {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launchPersistentContext('', {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
  });
}

/** A new page that records console errors and uncaught exceptions. */
export async function openPage(browser, path = '') {
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.url()}`);
  });
  page.on('console', (msg) => {
    // Failed loads are reported with their URL by the 'response' handler.
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource'))
      problems.push(`console.error: ${msg.text()}`);
  });
  await page.goto(new URL(path, BASE_URL).href, { waitUntil: 'load' });
  return { page, problems };
}
