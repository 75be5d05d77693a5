// Steps of the page shared by the end-to-end tests.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ARTIFACTS, BASE_URL } from './browser.mjs';

/** A page in `context` that records uncaught errors and console errors. */
export async function open(context, path) {
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) problems.push(msg.text());
  });
  await page.goto(new URL(path, BASE_URL).href, { waitUntil: 'load' });
  return { page, problems };
}

export async function shot(page, name) {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

export async function planned(page) {
  const status = page.locator('#plan-status[data-state="planned"]');
  await status.waitFor({ timeout: 60_000 });
  return status;
}

/** After a complete run: a new plan needs no call, and every unit is reused or templated. */
export async function replanned(page, units) {
  const status = page.locator('#plan-status[data-state="planned"][data-calls="0"]');
  await status.waitFor({ timeout: 30_000 });
  const reused = Number(await status.getAttribute('data-reused'));
  const templated = Number(await status.getAttribute('data-templated'));
  assert.equal(reused + templated, units, `reused ${reused} + templated ${templated}`);
}

/// The demo loaded as a user would by hand (the model and its archive by
/// address): it plans, and nothing runs by itself (`?demo` also runs the
/// offline demo and opens Navigate).
export const DEMO_BY_HAND = '?model=fixtures/demo/model.jsonl&src=fixtures/demo/demo-src.zip';

/** Waits for the Worker to be ready (its status line shows only on a problem). */
export async function workerReady(page) {
  const status = page.locator('#worker-status[data-state="ready"]');
  await status.waitFor({ state: 'attached', timeout: 30_000 });
  return status;
}

/** Opens the provider card's "More" (calls at once, output cap, structured output, the key). */
export async function providerMore(page) {
  await page.evaluate(() => { document.querySelector('#provider-more').open = true; });
}

export async function chooseProvider(page, kind, baseUrl) {
  await page.selectOption('#provider-kind', kind);
  await providerMore(page);
  if (baseUrl) await page.fill('#provider-base-url', baseUrl);
}

export async function runAndConfirm(page) {
  await page.click('#run-button');
  await page.locator('#confirm').waitFor();
  await page.click('#confirm-run');
}

export async function finished(page, timeout = 120_000) {
  const status = page.locator('#run-status[data-state="finished"], #run-status[data-state="aborted"], #run-status[data-state="stopped"]');
  // Attached, not visible: the demo's own run ends on the Navigate tab.
  await status.waitFor({ state: 'attached', timeout });
  return status;
}

/** Asks Explore `question` (on its tab); the newer answer, to this question. */
export async function ask(page, question) {
  const before = await page.locator('#explore-answer').getAttribute('data-seq', { timeout: 100 }).catch(() => null);
  await page.fill('#explore-question', question);
  await page.click('#explore-ask');
  // A newer answer, to this question (a mode switch may have asked the one
  // before again): the map's heading repeats the question.
  const head = `Exploration: ${question.trim()}`;
  await page.waitForFunction(
    ([b, head]) => {
      const a = document.querySelector('#explore-answer');
      const map = document.querySelector('#explore-map')?.textContent ?? '';
      return a && a.dataset.seq !== b && map.includes(head);
    },
    [before, head],
    { timeout: 30_000 },
  );
  return page.locator('#explore-answer');
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The demo model explained by the CLI `cli` with the offline demo (a copy in
 * a temporary folder, with the demo's source), then each record's block
 * handed to `edit(block, id, record)` and the side-car written back; the
 * store the run wrote is removed, so the side-car is what is read. Returns
 * `{ dir, model, sidecar }`.
 */
export function demoSidecar(cli, edit) {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-demo-'));
  const model = join(dir, 'model.jsonl');
  cpSync(join(ROOT, 'fixtures/demo/model.jsonl'), model);
  execFileSync(cli, ['explain', model, '--provider', 'demo', '--src', join(ROOT, 'fixtures/demo/demo-src.zip'), '--yes'], { stdio: 'pipe' });
  const sidecar = join(dir, 'model.insights.jsonl');
  const lines = readFileSync(sidecar, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
  for (const line of lines) if (line.block) edit(line.block, line.id, line);
  writeFileSync(sidecar, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  rmSync(join(dir, 'model.insights.db'), { force: true });
  return { dir, model, sidecar };
}
