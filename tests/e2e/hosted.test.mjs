// The hosted page (`cargo xtask dist --base /sub/path/`) as a user meets it
// over time, each test on its own copy of the folder and its own host:
// * offline after the first visit: the host gone and the browser offline,
//   a reload still runs the demo and loads a model from this computer;
// * a new version published while a run goes: announced, the run carries
//   on, taken on the reload; and no request of the whole run leaves the
//   page's origin but to the chosen provider.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, need } from './browser.mjs';
import { open, shot, finished, planned, chooseProvider, runAndConfirm } from './app.mjs';
import { host } from './static.mjs';

const DIST_DIR = need('E2E_DIST_DIR');
const BASE = '/sub/path/';
const SLOW = need('E2E_MOCK_SLOW_URL');
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** Waits until the service worker controls `page` and has cached its version; the cache's names. */
async function offlineReady(page) {
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 });
  return page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    const names = await caches.keys();
    const files = await Promise.all(names.map(async (n) => (await (await caches.open(n)).keys()).length));
    return { names, files };
  });
}

test('after one visit the page works offline: the demo runs and a local model loads with the host gone', async () => {
  const site = await host(DIST_DIR, BASE);
  const context = await browser.newContext();
  try {
    const { page } = await open(context, site.url);
    const cached = await offlineReady(page);
    assert.equal(cached.names.length, 1, `one version cached: ${cached.names}`);
    assert.ok(cached.files[0] >= 9, `the shell, both modules and the demo: ${cached.files[0]} files`);
    assert.equal(await page.locator('#offline').count(), 0, 'online, no offline line');

    // The network gone: the host stopped and the browser offline.
    await site.stop();
    await context.setOffline(true);
    await page.goto(`${site.url}?demo`);
    const offline = page.locator('#offline');
    await offline.waitFor();
    assert.match(await offline.innerText(), /Offline/);
    const done = await finished(page);
    assert.equal(await done.getAttribute('data-state'), 'finished');
    await page.locator('#insight[data-status="explained"]').waitFor({ timeout: 30_000 });
    await shot(page, 'offline-demo');

    // A model from this computer loads and plans offline too.
    await page.click('#tab-explain');
    await page.setInputFiles('#pick-model', join(ROOT, 'fixtures/upstream-java/model.jsonl'));
    const plan = page.locator('#plan-status[data-state="planned"][data-units="77"]');
    await plan.waitFor({ state: 'attached', timeout: 60_000 });

    // Back online, the line goes.
    await context.setOffline(false);
    await offline.waitFor({ state: 'detached' });
  } finally {
    await context.close();
    await site.remove();
  }
});

test('a new version published during a run is announced, never disturbs the run, and is taken on reload; only the provider is called', async () => {
  const site = await host(DIST_DIR, BASE);
  const context = await browser.newContext();
  const origins = new Set();
  context.on('request', (r) => {
    const u = new URL(r.url());
    if (u.protocol === 'http:' || u.protocol === 'https:') origins.add(u.origin);
  });
  const { page, problems } = await open(context, `${site.url}?model=fixtures/upstream-java/model.jsonl&plan=1`);
  try {
    const first = await offlineReady(page);
    await planned(page);
    await chooseProvider(page, 'openai-compatible', SLOW);
    await page.fill('#concurrency', '1');
    await runAndConfirm(page);
    await page.waitForFunction(() => Number(document.querySelector('#run-status')?.dataset.done ?? 0) >= 5, null, { timeout: 60_000 });

    // Publish a new version (any change to sw.js is one) and let the page look.
    const sw = join(site.root, 'sw.js');
    const next = readFileSync(sw, 'utf8').replace(/const VERSION = '[^']*';/, "const VERSION = 'e2e-next';");
    writeFileSync(sw, next);
    await page.evaluate(async () => (await navigator.serviceWorker.getRegistration()).update());
    const notice = page.locator('#update-ready');
    await notice.waitFor({ timeout: 30_000 });
    assert.match(await notice.innerText(), /new version/);
    // The run goes on with the version it started with.
    assert.ok(await page.locator('#update-reload').isDisabled(), 'no reload offered while the run goes');
    await shot(page, 'update-during-run');
    const done = await finished(page);
    assert.equal(await done.getAttribute('data-state'), 'finished');
    assert.equal(await done.getAttribute('data-failed'), '0');
    const records = Number(await done.getAttribute('data-records'));
    assert.ok(records > 0);
    // The next version waits in a cache of its own; the running one is untouched.
    const names = await page.evaluate(() => caches.keys());
    assert.deepEqual(names.sort(), [...first.names, 'codegraph-insights-e2e-next'].sort());

    // Taken on the reload.
    await page.locator('#update-reload:not([disabled])').click();
    await page.waitForFunction(async () => {
      const names = await caches.keys();
      return names.length === 1 && names[0] === 'codegraph-insights-e2e-next';
    }, null, { timeout: 30_000, polling: 250 });
    await page.locator('#store-status').waitFor({ timeout: 30_000 });
    await page.waitForFunction((n) => Number(document.querySelector('#store-status')?.dataset.records ?? 0) >= n, records);
    assert.equal(await page.locator('#update-ready').count(), 0, 'the new version is the one running');

    // Nothing but the page's origin and the provider was ever asked.
    assert.deepEqual([...origins].sort(), [new URL(site.url).origin, new URL(SLOW).origin].sort());
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
    await site.remove();
  }
});
