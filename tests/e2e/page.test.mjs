import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ARTIFACTS, launch, openPage } from './browser.mjs';

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
    const status = page.locator('#worker-status');
    await status.filter({ hasText: /^worker ready: \d+\.\d+\.\d+/ }).waitFor({ timeout: 30_000 });
    assert.match(await status.innerText(), /^worker ready: \d+\.\d+\.\d+/);

    // COOP/COEP from the server make the page cross-origin isolated (OPFS later).
    assert.equal(await page.evaluate(() => globalThis.crossOriginIsolated), true);
    assert.deepEqual(problems, []);
  } finally {
    await page.screenshot({ path: join(ARTIFACTS, 'page.png'), fullPage: true });
    await page.close();
  }
});
