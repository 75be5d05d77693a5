import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ARTIFACTS, launch, openPage } from './browser.mjs';
import { workerReady, DEMO_BY_HAND } from './app.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test('the page starts its worker and shows that it answered', async () => {
  const { page, problems } = await openPage(browser);
  try {
    await assert.doesNotReject(
      page.locator('h1', { hasText: 'codegraph insights' }).waitFor({ timeout: 15_000 }),
    );
    // The Worker's status is not shown once it is ready (no debug text): it is there for tests and errors.
    const status = await workerReady(page);
    assert.match(await status.textContent(), /^worker ready: \d+\.\d+\.\d+/);
    assert.equal(await status.isVisible(), false);

    // COOP/COEP from the server make the page cross-origin isolated (OPFS later).
    assert.equal(await page.evaluate(() => globalThis.crossOriginIsolated), true);
    assert.deepEqual(problems, []);
  } finally {
    await page.screenshot({ path: join(ARTIFACTS, 'page.png'), fullPage: true });
    await page.close();
  }
});

test('the tabs follow the ARIA tabs pattern and wait for a model', async () => {
  const { page, problems } = await openPage(browser);
  try {
    await workerReady(page);
    const tabs = page.locator('[role="tablist"] [role="tab"]');
    assert.equal(await tabs.count(), 6);
    assert.equal(await page.getAttribute('#tab-explain', 'aria-selected'), 'true');
    assert.equal(await page.getAttribute('#tab-explain', 'aria-controls'), 'panel-explain');
    assert.equal(await page.getAttribute('#panel-explain', 'role'), 'tabpanel');
    // No model yet: only Explain can be opened.
    for (const id of ['#tab-navigate', '#tab-graph', '#tab-cycles', '#tab-explore', '#tab-domain']) {
      assert.ok(await page.locator(id).isDisabled(), id);
      assert.equal(await page.getAttribute(id, 'tabindex'), '-1');
    }
    await page.goto(new URL(DEMO_BY_HAND, page.url()).href);
    await page.locator('#model-status[data-state="loaded"]').waitFor({ timeout: 30_000 });
    assert.ok(!(await page.locator('#tab-navigate').isDisabled()));
    // Arrow keys move the selection (and the focus) along the strip, wrapping.
    await page.focus('#tab-explain');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.getAttribute('#tab-navigate', 'aria-selected'), 'true');
    assert.equal(await page.getAttribute('#tab-explain', 'aria-selected'), 'false');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'tab-navigate');
    await page.locator('#panel-navigate[role="tabpanel"]').waitFor();
    await page.keyboard.press('End');
    assert.equal(await page.getAttribute('#tab-domain', 'aria-selected'), 'true');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.getAttribute('#tab-explain', 'aria-selected'), 'true');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});
