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

test('?model=URL reads the model in the worker and shows its census', async () => {
  const { page, problems } = await openPage(browser, '?model=fixtures/upstream-java/model.jsonl');
  try {
    const status = page.locator('#model-status[data-state="loaded"]');
    await status.waitFor({ timeout: 30_000 });
    assert.equal(await status.getAttribute('data-entities'), '179');
    assert.equal(await status.getAttribute('data-edges'), '188');
    assert.match(
      await status.locator('p').first().innerText(),
      /^model\.jsonl: 16 files, 179 entities, 188 edges \(19 corpus types, 20 stub types, 3 modules\), read in \d+\.\d\d s$/,
    );
    assert.deepEqual(problems, []);
  } finally {
    await page.screenshot({ path: join(ARTIFACTS, 'load-model.png'), fullPage: true });
    await page.close();
  }
});

test('a malformed model gets an error panel naming the line and the rule', async () => {
  const { page, problems } = await openPage(browser, '?model=fixtures/malformed/dangling-edge.jsonl');
  try {
    const panel = page.locator('#model-status[data-state="failed"]');
    await panel.waitFor({ timeout: 30_000 });
    assert.equal(await panel.getAttribute('role'), 'alert');
    assert.equal(await panel.getAttribute('data-line'), '197');
    assert.equal(await panel.getAttribute('data-rule'), 'reference-closure');
    assert.equal(
      await panel.locator('.error-text').innerText(),
      'dangling-edge.jsonl:197: edge "o" refers to entity 9001, but the model has 179 entities',
    );
    // The page stays usable: the worker still answers.
    assert.match(await page.locator('#worker-status').textContent(), /^worker ready: /);
    assert.deepEqual(problems, []);
  } finally {
    await page.screenshot({ path: join(ARTIFACTS, 'load-error.png'), fullPage: true });
    await page.close();
  }
});

test('a model that cannot be fetched says so', async () => {
  const { page } = await openPage(browser, '?model=fixtures/no-such-model.jsonl');
  try {
    const panel = page.locator('#model-status[data-state="failed"]');
    await panel.waitFor({ timeout: 30_000 });
    assert.equal(await panel.getAttribute('data-rule'), 'fetch');
    assert.match(await panel.locator('.error-text').innerText(), /no-such-model\.jsonl: HTTP 404/);
  } finally {
    await page.close();
  }
});
