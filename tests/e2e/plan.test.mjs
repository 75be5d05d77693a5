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

test('?model=URL&plan=1 plans the loaded model in the worker, as explain --dry-run does', async () => {
  const { page, problems } = await openPage(browser, '?model=fixtures/upstream-java/model.jsonl&plan=1');
  try {
    const status = page.locator('#plan-status[data-state="planned"]');
    await status.waitFor({ timeout: 60_000 });
    assert.equal(await status.getAttribute('data-units'), '77');
    assert.equal(await status.getAttribute('data-calls'), '68');
    assert.ok(Number(await status.getAttribute('data-wasm-memory')) > 0);
    assert.match(
      await status.locator('.totals').innerText(),
      /^plan: 77 units in 8 layers, 68 calls, 106 629 prompt \+ 36 650 completion tokens \(estimated\), planned in \d+\.\d\d s$/,
    );
    assert.deepEqual(problems, []);
  } finally {
    await page.screenshot({ path: join(ARTIFACTS, 'plan-model.png'), fullPage: true });
    await page.close();
  }
});
