// `cargo xtask bench domain` (browser part), one run per invocation; prints
// one JSON line.
//
//   node tests/bench/domain.mjs MODEL_PATH SIDECAR_FILE RECORDS TIMEOUT_SECONDS [profile|private]
//
// `profile` (the default): a browser with a fresh profile on disk, as a
// person's is; `private`: an off-the-record context (a private window),
// where OPFS lives in memory behind a slower call.
// A fresh browser opens ?model=MODEL_PATH&plan=1 (the hosted page), imports
// SIDECAR_FILE (RECORDS records) through the Keep card's picker, then opens
// the Domain tab: from the click until the coverage line is in the DOM, with
// the Worker's own figure for building the view (#domain-coverage
// [data-millis]: facts, records, view and the map's layout).
import { launch, launchProfile, BASE_URL } from './common.mjs';

const [modelPath, sidecar, records, timeoutSeconds, mode = 'profile'] = process.argv.slice(2);
if (!['profile', 'private'].includes(mode)) throw new Error(`mode ${mode}: profile or private`);
if (!modelPath || !sidecar || !records) throw new Error('usage: domain.mjs MODEL_PATH SIDECAR_FILE RECORDS TIMEOUT_SECONDS');
const timeout = Number(timeoutSeconds ?? 600) * 1000;

const browser = mode === 'profile' ? await launchProfile() : await launch();
try {
  const page =
    mode === 'profile'
      ? (browser.pages()[0] ?? (await browser.newPage()))
      : await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const problems = [];
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  await page.goto(new URL(`?model=${encodeURIComponent(modelPath)}&plan=1`, BASE_URL).href);
  await page.locator('#plan-status[data-state="planned"]').waitFor({ state: 'attached', timeout });
  const importStart = Date.now();
  await page.setInputFiles('#pick-sidecar', sidecar);
  const full = (n) => Number(document.querySelector('#store-status')?.dataset.records ?? 0) >= n;
  const confirm = page.locator('#confirm-import');
  await Promise.race([
    confirm.waitFor({ timeout }).then(() => confirm.click()),
    page.waitForFunction(full, Number(records), { timeout }),
  ]);
  await page.waitForFunction(full, Number(records), { timeout, polling: 200 });
  const importMs = Date.now() - importStart;
  // The store's change re-plans nothing; let the Worker settle.
  await page.waitForTimeout(500);
  const t0 = await page.evaluate(() => performance.now());
  await page.click('#tab-domain');
  const coverage = page.locator('#domain-coverage');
  await coverage.waitFor({ timeout });
  const shownMs = (await page.evaluate(() => performance.now())) - t0;
  const figures = await coverage.evaluate((p) => ({ ...p.dataset, text: p.textContent }));
  const boxes = await page.locator('#domain-map .gnode.context[data-node]').count();
  const leftOut = await page.locator('#graph-left-out').textContent().catch(() => null);
  console.log(JSON.stringify({ mode, importMs, shownMs, workerMs: Number(figures.millis), figures, boxes, leftOut, problems }));
} finally {
  await browser.close();
}
