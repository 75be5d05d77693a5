// The page as a user drives it: the demo end to end, a run against the
// loopback mock provider with a reload mid-run, a fatal provider status, a
// second tab, and the side-car compared byte for byte with the CLI's export.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, need, BASE_URL } from './browser.mjs';
import { open, shot, planned, replanned, chooseProvider, runAndConfirm, finished, DEMO_BY_HAND } from './app.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SLOW = need('E2E_MOCK_SLOW_URL');
const BROKE = need('E2E_MOCK_402_URL');
const CLI = need('E2E_CLI');

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test('the demo: load, plan, estimate, run offline, download the side-car that the CLI exports identically', async () => {
  const context = await browser.newContext({ acceptDownloads: true });
  const { page, problems } = await open(context, DEMO_BY_HAND);
  try {
    await page.locator('#model-status[data-state="loaded"]').waitFor({ timeout: 30_000 });
    const source = page.locator('#source-status[data-state="loaded"]');
    await source.waitFor({ timeout: 30_000 });
    assert.equal(await source.getAttribute('data-matched'), await source.getAttribute('data-wanted'));
    const plan = await planned(page);
    const units = Number(await plan.getAttribute('data-units'));
    const calls = Number(await plan.getAttribute('data-calls'));
    assert.ok(units > 20 && calls > 0, `units ${units}, calls ${calls}`);
    assert.ok(Number(await plan.getAttribute('data-templated')) > 0, 'the demo has templated members');
    // The table pages and filters in the worker.
    await page.click('#plan-details summary');
    assert.equal(await page.locator('#plan-table tbody tr').count(), Math.min(units, 50));
    await page.selectOption('#filter-level', 'module');
    await page.locator('#plan-table tbody tr[data-level="module"]').first().waitFor();
    assert.ok((await page.locator('#plan-table tbody tr').count()) < Math.min(units, 50));
    await shot(page, 'demo-plan');

    // The estimate, with prices, and the confirmation repeating it.
    await page.fill('#price-in', '1');
    await page.fill('#price-out', '2');
    assert.match(await page.locator('#estimate').innerText(), /free with the offline demo/);
    await page.selectOption('#provider-kind', 'openrouter');
    assert.match(await page.locator('#estimate').innerText(), /about \$\d+\.\d{4}/);
    await page.selectOption('#provider-kind', 'demo');
    await page.click('#run-button');
    const confirm = page.locator('#confirm');
    await confirm.waitFor();
    assert.match(await confirm.innerText(), new RegExp(`${calls} call\\(s\\) to the offline demo`));
    await shot(page, 'demo-confirm');
    await page.click('#confirm-run');
    const done = await finished(page);
    assert.equal(await done.getAttribute('data-state'), 'finished');
    assert.equal(await done.getAttribute('data-failed'), '0');
    const records = Number(await done.getAttribute('data-records'));
    assert.ok(records >= units, `records ${records} for ${units} units`);
    await shot(page, 'demo-run-finished');

    // Planning again: no call is left; what was asked is reused, templates are redone for free.
    await page.click('#settings summary');
    await page.click('#plan-button');
    await replanned(page, units);

    // Download the side-car and the store; the CLI's export of that store is the same bytes.
    const [sidecar] = await Promise.all([page.waitForEvent('download'), page.click('#download-sidecar')]);
    assert.equal(sidecar.suggestedFilename(), 'model.insights.jsonl');
    const dir = mkdtempSync(join(tmpdir(), 'e2e-sidecar-'));
    const pagePath = join(dir, 'page.insights.jsonl');
    await sidecar.saveAs(pagePath);
    const text = readFileSync(pagePath, 'utf8');
    assert.equal(text.trim().split('\n').length, records + 2, 'header, one line per record, trailer');
    await page.locator('#stores tr.current').waitFor();
    // Stores are listed by the model they belong to; the store's file is the detail.
    assert.equal(await page.locator('#stores tr.current .store-label').innerText(), 'fixtures/demo/src/main/java · model.jsonl');
    assert.match(await page.locator('#stores tr.current .store-file').innerText(), /^model-[0-9a-f]+\.insights\.db$/);
    const [storeFile] = await Promise.all([page.waitForEvent('download'), page.click('#stores tr.current .export-store')]);
    {
      copyFileSync(join(ROOT, 'fixtures/demo/model.jsonl'), join(dir, 'model.jsonl'));
      await storeFile.saveAs(join(dir, 'model.insights.db'));
      execFileSync(CLI, ['explain', join(dir, 'model.jsonl'), '--export'], { stdio: 'pipe' });
      assert.equal(readFileSync(join(dir, 'model.insights.jsonl'), 'utf8'), text, 'byte-identical to the CLI export');
    }

    // Delete the store (after the browser's confirmation): its records are gone.
    page.once('dialog', (d) => d.accept());
    await page.click('#stores tr.current .delete-store');
    await page.locator('#store-status[data-records="0"]').waitFor({ timeout: 30_000 });
    // Import the downloaded side-car: the records come back.
    await page.setInputFiles('#pick-sidecar', pagePath);
    await page.locator(`#store-status[data-records="${records}"]`).waitFor({ timeout: 30_000 });
    assert.match(await page.locator('#notice').innerText(), new RegExp(`imported ${records} records`));
    // Importing over paid-for records asks first; keeping the store changes nothing.
    await page.setInputFiles('#pick-sidecar', pagePath);
    const ask = page.locator('#import-confirm');
    await ask.waitFor();
    assert.match(await ask.innerText(), new RegExp(`holds ${records} paid-for records`));
    await shot(page, 'import-confirm');
    await page.click('#cancel-import');
    assert.match(await page.locator('#notice').innerText(), /nothing was imported/);
    // A cut-short side-car (its first 20 lines) never replaces: asked, it is merged and nothing is removed.
    const cutPath = join(mkdtempSync(join(tmpdir(), 'e2e-cut-')), 'cut.insights.jsonl');
    writeFileSync(cutPath, text.split('\n').slice(0, 20).join('\n') + '\n');
    await page.setInputFiles('#pick-sidecar', cutPath);
    await ask.waitFor();
    assert.match(await ask.innerText(), /cut short \(it has no eof line\)\. Merge its 19 records/);
    assert.equal(await page.locator('#confirm-import').innerText(), 'Merge');
    await shot(page, 'import-cut-short');
    await page.click('#confirm-import');
    await page.locator('#notice', { hasText: 'merged 19 records' }).waitFor({ timeout: 30_000 });
    await page.locator(`#store-status[data-records="${records}"]`).waitFor({ timeout: 30_000 });
    await replanned(page, units);
    assert.deepEqual(problems, []);
  } finally {
    await shot(page, 'demo-final');
    await context.close();
  }
});

test('?demo never spends: a remembered provider is not used, and no request leaves the page', async () => {
  const context = await browser.newContext();
  const origin = new URL(BASE_URL).origin;
  const outside = [];
  context.on('request', (r) => {
    if (new URL(r.url()).origin !== origin) outside.push(r.url());
  });
  // Remember an OpenAI-compatible provider (as a run with it would), with prices.
  const first = await open(context, '');
  await first.page.evaluate((url) => {
    localStorage.setItem('codegraph-insights.provider', ['openai-compatible', '', '', url, '1', '2', '2', 'detect'].join('\u001f'));
  }, SLOW);
  await first.page.close();
  const { page, problems } = await open(context, '?demo');
  try {
    // The demo plans and runs by itself, on the offline completer.
    const done = await finished(page);
    assert.equal(await page.inputValue('#provider-kind'), 'demo');
    assert.equal(await done.getAttribute('data-state'), 'finished');
    // The run's end is announced in a polite live region.
    assert.equal(await page.getAttribute('#run-live', 'aria-live'), 'polite');
    assert.match(await page.locator('#run-live').textContent(), /^The run finished: \d+ explained, 0 failed, \d+ calls\.$/);
    assert.deepEqual(outside, [], 'no request outside the page');
    // The remembered provider is still the one remembered: the demo does not overwrite it.
    assert.match(await page.evaluate(() => localStorage.getItem('codegraph-insights.provider')), /^openai-compatible\u001f/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a run against the loopback provider survives a reload mid-run and resumes with nothing lost', async () => {
  const context = await browser.newContext();
  const path = '?model=fixtures/upstream-java/model.jsonl&plan=1';
  let { page } = await open(context, path);
  try {
    const plan = await planned(page);
    assert.equal(await plan.getAttribute('data-units'), '77');
    assert.equal(await plan.getAttribute('data-calls'), '68');
    await chooseProvider(page, 'openai-compatible', SLOW);
    await page.fill('#provider-key', 'sk-test-not-a-real-key');
    await page.fill('#concurrency', '2');
    await runAndConfirm(page);
    await page.waitForFunction(() => Number(document.querySelector('#run-status')?.dataset.done ?? 0) >= 20, null, { timeout: 60_000 });
    await shot(page, 'run-progress');
    // The key is nowhere but in memory: not in the address, not in localStorage (no opt-in).
    assert.ok(!page.url().includes('sk-test'));
    const saved = await page.evaluate(() => JSON.stringify(Object.entries(localStorage)));
    assert.ok(!saved.includes('sk-test'), saved);

    await page.reload({ waitUntil: 'load' });
    const store = page.locator('#store-status');
    await store.waitFor({ timeout: 30_000 });
    await page.waitForFunction(() => Number(document.querySelector('#store-status')?.dataset.records ?? 0) > 0);
    assert.match(await store.innerText(), /ended when a tab closed/);
    const kept = Number(await store.getAttribute('data-records'));
    const again = await planned(page);
    assert.ok(Number(await again.getAttribute('data-reused')) > 0, 'committed units are reused');
    assert.ok(Number(await again.getAttribute('data-calls')) < 68);
    await shot(page, 'resume-plan');

    // The provider settings came back (not the key); type it again and continue.
    assert.equal(await page.inputValue('#provider-base-url'), SLOW);
    await page.fill('#provider-key', 'sk-test-not-a-real-key');
    await runAndConfirm(page);
    const done = await finished(page);
    assert.equal(await done.getAttribute('data-state'), 'finished');
    assert.equal(await done.getAttribute('data-failed'), '0');
    assert.ok(Number(await done.getAttribute('data-records')) > kept);
    await page.click('#settings summary');
    await page.click('#plan-button');
    await replanned(page, 77);
    await shot(page, 'resume-finished');
  } finally {
    await context.close();
  }
});

test('Stop while paused sends nothing more: the calls waiting are withdrawn, owed, not failed', async () => {
  const context = await browser.newContext();
  let sent = 0;
  let settled = 0;
  const chat = (r) => r.url().endsWith('/chat/completions') && r.method() === 'POST';
  context.on('request', (r) => { if (chat(r)) sent += 1; });
  context.on('requestfinished', (r) => { if (chat(r)) settled += 1; });
  context.on('requestfailed', (r) => { if (chat(r)) settled += 1; });
  const { page } = await open(context, '?model=fixtures/upstream-java/model.jsonl');
  try {
    await planned(page);
    await chooseProvider(page, 'openai-compatible', SLOW);
    await page.fill('#concurrency', '3');
    await runAndConfirm(page);
    await page.waitForFunction(() => Number(document.querySelector('#run-status')?.dataset.calls ?? 0) >= 4, null, { timeout: 60_000 });
    await page.click('#pause-run');
    await page.locator('#run-status[data-state="paused"]').waitFor();
    // The calls already sent come back; the next ones wait, unsent.
    const deadline = Date.now() + 30_000;
    while (settled < sent && Date.now() < deadline) await page.waitForTimeout(50);
    assert.equal(settled, sent, 'the calls in flight when paused came back');
    await page.waitForTimeout(500);
    assert.equal(settled, sent, 'nothing is sent while paused');
    const before = sent;
    await page.click('#stop-run');
    const done = await finished(page);
    assert.equal(await done.getAttribute('data-state'), 'stopped');
    assert.equal(await done.getAttribute('data-failed'), '0', 'a withdrawn call is not a failure');
    assert.equal(sent, before, 'no call left the page after the stop');
    assert.equal(Number(await done.getAttribute('data-calls')), sent, 'every call sent was answered and counted');
  } finally {
    await context.close();
  }
});

test('a fatal provider status stops the run and says what to fix', async () => {
  const context = await browser.newContext();
  const { page } = await open(context, '?model=fixtures/upstream-java/model.jsonl&plan=1');
  try {
    await planned(page);
    await chooseProvider(page, 'openai-compatible', BROKE);
    await page.fill('#concurrency', '1');
    // No source was loaded: the confirmation says what that means before anything is paid.
    await page.click('#run-button');
    const warning = page.locator('#confirm-no-source');
    await warning.waitFor();
    assert.match(await warning.innerText(), /No source: 65 unit\(s\) will be explained from the model's facts only/);
    assert.equal(await page.locator('#confirm-run').innerText(), 'Run without source');
    await page.click('#confirm-run');
    const done = await finished(page);
    assert.equal(await done.getAttribute('data-state'), 'aborted');
    const aborted = page.locator('#run-aborted');
    assert.match(await aborted.innerText(), /status 402/);
    assert.match(await aborted.innerText(), /add credit/);
    // Two answered calls; the refused third is not a call (it was never answered).
    assert.equal(await done.getAttribute('data-calls'), '2');
    assert.equal(await done.getAttribute('data-failed'), '1');
    await shot(page, 'run-aborted');
    // The account is fixed (the mock refuses only its third call): retry the failure, then run the rest.
    await page.click('#retry-failed');
    const retry = await planned(page);
    assert.ok(Number(await retry.getAttribute('data-calls')) >= 1);
    await runAndConfirm(page);
    await page.locator('#run-status[data-state="finished"][data-failed="0"]').waitFor({ timeout: 60_000 });
    await runAndConfirm(page);
    await page.locator('#run-status[data-state="finished"][data-failed="0"]').waitFor({ timeout: 120_000 });
    await page.click('#settings summary');
    await page.click('#plan-button');
    await replanned(page, 77);
  } finally {
    await context.close();
  }
});

test("a side-car of another model asks before it is imported", async () => {
  // The demo's side-car, made by the CLI's offline demo.
  const dir = mkdtempSync(join(tmpdir(), 'e2e-foreign-'));
  copyFileSync(join(ROOT, 'fixtures/demo/model.jsonl'), join(dir, 'model.jsonl'));
  execFileSync(CLI, ['explain', join(dir, 'model.jsonl'), '--provider', 'demo', '--yes'], { stdio: 'pipe' });
  const context = await browser.newContext();
  const { page, problems } = await open(context, '?model=fixtures/upstream-java/model.jsonl&plan=1');
  try {
    await planned(page);
    await page.locator('#store-status[data-records="0"]').waitFor({ timeout: 30_000 });
    await page.setInputFiles('#pick-sidecar', join(dir, 'model.insights.jsonl'));
    const ask = page.locator('#import-confirm');
    await ask.waitFor();
    assert.match(await page.locator('#import-foreign').innerText(), /another model's side-car: \d+ of the \d+ records checked name nothing in this model/);
    assert.equal(await page.locator('#confirm-import').innerText(), 'Import anyway');
    await page.click('#cancel-import');
    assert.match(await page.locator('#notice').innerText(), /nothing was imported/);
    assert.equal(await page.locator('#store-status').getAttribute('data-records'), '0');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a second tab on the same browser opens read-only and says why', async () => {
  const context = await browser.newContext();
  const path = '?model=fixtures/upstream-java/model.jsonl&plan=1';
  const first = await open(context, path);
  try {
    await planned(first.page);
    const second = await open(context, path);
    const notice = second.page.locator('#read-only');
    await notice.waitFor({ timeout: 30_000 });
    assert.match(await notice.innerText(), /another tab/);
    assert.ok(await second.page.locator('#run-button').isDisabled());
    await shot(second.page, 'second-tab');
  } finally {
    await context.close();
  }
});
