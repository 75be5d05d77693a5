// The page against a real local model nobody here wrote: llama-cpp-python's
// OpenAI-compatible server with SmolLM2-135M, reached through "OpenAI-compatible
// URL" from headless Chromium (the server allows any origin, as local servers
// do with CORS on). Run by `cargo xtask test` (stage real-llm), which starts
// the server; the name does not match `node --test`'s default pattern, so the
// e2e stage does not pick it up.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, need } from './browser.mjs';
import { open, shot, planned, chooseProvider, finished } from './app.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const LLM = need('E2E_LLM_URL');
const MODEL = need('E2E_LLM_MODEL');
const CLI = need('E2E_CLI');
const SCOPE = 'java:com.acme.order.adapter';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

async function settings(page, { model, scope }) {
  await page.click('#settings summary');
  await page.fill('#set-model', model);
  await page.locator('#set-model').dispatchEvent('change');
  await page.fill('#set-scope', scope);
  await page.locator('#set-scope').dispatchEvent('change');
  await page.click('#plan-button');
}

test('SmolLM2 on llama-cpp-python explains a module from the page: the mode negotiated, every answer kept', async () => {
  const context = await browser.newContext({ acceptDownloads: true });
  const { page, problems } = await open(context, '?model=fixtures/upstream-java/model.jsonl&plan=1');
  try {
    await planned(page);
    await settings(page, { model: MODEL, scope: SCOPE });
    const plan = page.locator('#plan-status[data-state="planned"][data-calls="4"]');
    await plan.waitFor({ timeout: 30_000 });
    await chooseProvider(page, 'openai-compatible', LLM);
    assert.equal(await page.inputValue('#output-mode'), 'detect');
    await page.fill('#concurrency', '1');
    await page.click('#run-button');
    await page.locator('#confirm').waitFor();
    assert.match(await page.locator('#confirm').innerText(), /4 call\(s\) to the OpenAI-compatible server/);
    await page.click('#confirm-run');
    // The progress says which mode the server took, as soon as it is known.
    const mode = page.locator('#run-mode');
    await mode.waitFor({ timeout: 120_000 });
    await shot(page, 'real-llm-progress');
    const done = await finished(page, 300_000);
    assert.equal(await done.getAttribute('data-state'), 'finished');
    assert.equal(await page.locator('#run-mode').getAttribute('data-mode'), 'json-object-schema');
    assert.match(await page.locator('#run-mode').innerText(), new RegExp(`json-object-schema \\(${MODEL}\\)`));
    const calls = Number(await done.getAttribute('data-calls'));
    const failed = Number(await done.getAttribute('data-failed'));
    // One answered call per unit (plus a repair call where an answer did not
    // validate); the refused request is not a call.
    assert.ok(calls >= 4 && calls <= 8, `calls ${calls}`);
    // No unit failed for a format reason.
    const failures = await page.locator('#failures li').allInnerTexts();
    for (const f of failures) assert.doesNotMatch(f, /response_format|json_schema|not JSON|cut at max_tokens/, f);
    assert.equal(failures.length, failed);
    await shot(page, 'real-llm-finished');

    // Planning again: only failed units would be asked again.
    await page.click('#plan-button');
    await page.locator(`#plan-status[data-state="planned"][data-calls="${failed}"]`).waitFor({ timeout: 30_000 });

    // The side-car: one record per answer, served by the local model; the
    // CLI imports and exports it byte for byte.
    const [sidecar] = await Promise.all([page.waitForEvent('download'), page.click('#download-sidecar')]);
    const dir = mkdtempSync(join(tmpdir(), 'e2e-real-llm-'));
    const path = join(dir, 'page.insights.jsonl');
    await sidecar.saveAs(path);
    const text = readFileSync(path, 'utf8');
    const lines = text.trim().split('\n').map((l) => JSON.parse(l));
    const llm = lines.filter((l) => l.t === 'i' && l.origin === 'llm');
    assert.equal(llm.length + failed, 4, `${llm.length} records and ${failed} failures for 4 units`);
    assert.ok(llm.every((r) => r.model === MODEL), 'served by the local model');
    copyFileSync(join(ROOT, 'fixtures/upstream-java/model.jsonl'), join(dir, 'model.jsonl'));
    execFileSync(CLI, ['explain', join(dir, 'model.jsonl'), '--yes', '--import', path], { stdio: 'pipe' });
    execFileSync(CLI, ['explain', join(dir, 'model.jsonl'), '--export'], { stdio: 'pipe' });
    assert.equal(readFileSync(join(dir, 'model.insights.jsonl'), 'utf8'), text, 'byte-identical after a CLI round trip');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
