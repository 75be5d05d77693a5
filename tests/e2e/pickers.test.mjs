// Loading by hand: the file pickers (model, archive, folder), prices read
// from the provider's model list, and the scope picker.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, need } from './browser.mjs';
import { open, shot, planned, workerReady, DEMO_BY_HAND } from './app.mjs';

const DEMO = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'demo');
const SLOW = need('E2E_MOCK_SLOW_URL');

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test('a model and an archive picked by hand are read, matched and planned', async () => {
  const context = await browser.newContext();
  const { page, problems } = await open(context, '');
  try {
    await workerReady(page);
    // The archive first: it waits for its model.
    await page.setInputFiles('#pick-source', join(DEMO, 'demo-src.zip'));
    await page.setInputFiles('#pick-model', join(DEMO, 'model.jsonl'));
    await page.locator('#model-status[data-state="loaded"]').waitFor({ timeout: 30_000 });
    const source = page.locator('#source-status[data-state="loaded"]');
    await source.waitFor({ timeout: 30_000 });
    assert.equal(await source.getAttribute('data-matched'), '23');
    await page.click('#settings summary');
    await page.click('#plan-button');
    const plan = await planned(page);
    assert.equal(await plan.getAttribute('data-units'), '163');
    assert.equal(await plan.getAttribute('data-calls'), '104');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a source folder picked with the directory picker is matched against the model', async () => {
  const context = await browser.newContext();
  const { page } = await open(context, '?model=fixtures/demo/model.jsonl&plan=1');
  try {
    await planned(page);
    await page.setInputFiles('#pick-folder', join(DEMO, 'src', 'main', 'java'));
    const source = page.locator('#source-status[data-state="loaded"]');
    await source.waitFor({ timeout: 30_000 });
    assert.equal(await source.getAttribute('data-matched'), '23');
    assert.equal(await source.getAttribute('data-wanted'), '23');
  } finally {
    await context.close();
  }
});

test('prices come from the provider model list, and the scope picker narrows the plan', async () => {
  const context = await browser.newContext();
  const { page } = await open(context, DEMO_BY_HAND);
  try {
    const full = await planned(page);
    const allCalls = Number(await full.getAttribute('data-calls'));
    await page.selectOption('#provider-kind', 'openai-compatible');
    await page.fill('#provider-base-url', SLOW);
    await page.click('#fetch-prices');
    await page.waitForFunction(() => document.querySelector('#price-in')?.value === '0.15');
    assert.equal(await page.inputValue('#price-out'), '0.6');
    assert.match(await page.locator('#estimate').innerText(), /about \$\d+\.\d{4}/);

    await page.click('#settings summary');
    await page.fill('#scope-find', 'billing');
    const first = page.locator('#scope-suggestions .add-scope').first();
    await first.waitFor();
    await first.click();
    assert.match(await page.inputValue('#set-scope'), /billing/);
    await page.click('#plan-button');
    await page.waitForFunction(
      (all) => {
        const s = document.querySelector('#plan-status[data-state="planned"]');
        return s && Number(s.dataset.calls) < all;
      },
      allCalls,
      { timeout: 30_000 },
    );
    await shot(page, 'scope-and-prices');
  } finally {
    await context.close();
  }
});
