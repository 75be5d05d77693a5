// The navigator: tree, search, deep links, dependency rows, cycles, the
// insight panel's three answers, stale marking, full-text search over the
// explanations, keyboard navigation, and corpus/model text kept inert.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, need } from './browser.mjs';
import { open, shot, planned, runAndConfirm, finished, providerMore, workerReady, DEMO_BY_HAND } from './app.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = need('E2E_CLI');
const FAILING = need('E2E_MOCK_FAILING_URL');
const SLOW = need('E2E_MOCK_SLOW_URL');
const MONEY = 'java:com.acme.order/Money';
const CENTS = 'java:com.acme.order/Money.cents()';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

async function navReady(page) {
  await page.locator('#nav-facts').waitFor({ timeout: 30_000 });
}

async function select(page, id) {
  await page.evaluate((id) => {
    location.hash = `#id=${encodeURIComponent(id)}`;
  }, id);
  await page.locator(`#selection[data-id="${id}"]`).waitFor({ timeout: 30_000 });
}

/** A side-car for the upstream fixture made by the CLI: every unit explained but Money.cents(), which failed. */
function upstreamSidecar() {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-nav-'));
  const model = join(dir, 'model.jsonl');
  cpSync(join(ROOT, 'fixtures/upstream-java/model.jsonl'), model);
  try {
    execFileSync(CLI, ['explain', model, '--provider', 'openai-compatible', '--base-url', FAILING, '--yes', '--no-source'], { stdio: 'pipe' });
  } catch (e) {
    // Exit 3: a failure is recorded; that is the point.
    if (e.status !== 3) throw e;
  }
  const path = join(dir, 'model.insights.jsonl');
  // A model answer carrying markup: it must show as text.
  const lines = readFileSync(path, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
  const money = lines.find((l) => l.id === MONEY);
  money.block.description = 'Holds an amount. <script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">';
  writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return path;
}

test('the upstream fixture with an imported side-car: tree, search, deep link, dependencies, the three answers, inert text', async () => {
  const sidecar = upstreamSidecar();
  const context = await browser.newContext();
  const { page, problems } = await open(context, '?model=fixtures/upstream-java/model.jsonl&plan=1');
  try {
    await planned(page);
    await page.setInputFiles('#pick-sidecar', sidecar);
    await page.waitForFunction(() => Number(document.querySelector('#store-status')?.dataset.records ?? 0) > 0, null, { timeout: 30_000 });
    await page.click('#tab-navigate');
    await navReady(page);

    // The tree: roots are modules; expanding works with the keyboard.
    const firstRow = page.locator('.tree-row').first();
    await firstRow.waitFor();
    assert.ok((await page.locator('.tree-row').count()) > 0);
    await firstRow.click();
    await page.locator('#selection').waitFor();
    await page.focus('#tree-scroll');
    const before = await page.locator('.tree-row').count();
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((n) => document.querySelectorAll('.tree-row').length > n, before);
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(() => document.querySelector('.tree-row.selected') !== null);
    // An ARIA tree: rows are treeitems with their state; the cursor's row is the active descendant.
    assert.equal(await page.getAttribute('#tree-scroll', 'role'), 'tree');
    const selectedRow = page.locator('.tree-row.selected');
    assert.equal(await selectedRow.getAttribute('role'), 'treeitem');
    assert.equal(await selectedRow.getAttribute('aria-selected'), 'true');
    assert.equal(await page.getAttribute('#tree-scroll', 'aria-activedescendant'), await selectedRow.getAttribute('id'));
    assert.equal(await firstRow.getAttribute('aria-expanded'), 'true');

    // Search names and signatures; a hit shows its breadcrumb and selects.
    await page.keyboard.press('Escape');
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('/');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'tree-search');
    // One input event: typed key by key, the hits of "c" may be on screen
    // (rightly: they answer what the box held) before those of "cents".
    await page.keyboard.insertText('cents');
    const hit = page.locator('#search-results .hit').first();
    await hit.waitFor();
    assert.match(await hit.innerText(), /cents/);
    await hit.click();
    await page.locator(`#selection[data-id="${CENTS}"]`).waitFor();
    assert.match(page.url(), /#id=java%3Acom\.acme\.order%2FMoney\.cents\(\)/);

    // Failed: the reason and a retry action.
    const failed = page.locator('#insight[data-status="failed"]');
    await failed.waitFor();
    assert.match(await failed.innerText(), /not JSON/);
    assert.ok(await page.locator('#insight-retry').isVisible());
    await shot(page, 'nav-failed');

    // A deep link opens the same place: Money, explained, its dependents by role.
    await select(page, MONEY);
    const explained = page.locator('#insight[data-status="explained"]');
    await explained.waitFor();
    assert.match(await explained.innerText(), /LLM explanation/i);
    // Money was explained while Money.cents() failed: it is redone once cents() is explained, and says so.
    assert.equal(await explained.getAttribute('data-stale'), 'true');
    assert.match(await page.locator('#stale').innerText(), /Money\.cents\(\)/);
    assert.match(await explained.innerText(), /confidence \d\.\d\d/);
    const incoming = page.locator('.pane.incoming');
    assert.ok(Number(await incoming.getAttribute('data-total')) > 0, 'Money has dependents');
    assert.ok((await incoming.locator('.role').count()) > 0);
    // The markup in the model's answer is text.
    assert.match(await explained.locator('.description').innerText(), /<script>window\.__pwned = 1<\/script>/);
    assert.equal(await explained.locator('script, img').count(), 0);
    assert.equal(await page.evaluate(() => window.__pwned ?? null), null);
    await shot(page, 'nav-explained');
    // Where nothing changed, the CLI's record is current.
    await select(page, 'java:com.acme.order/Money.price()');
    await page.locator('#insight[data-status="explained"][data-stale="false"]').waitFor();

    // Unknown: a stub type is nobody's unit.
    await select(page, 'java:java.lang/Runnable');
    await page.locator('#insight[data-status="unknown"]').waitFor();
    assert.match(await page.locator('#selection h2').innerText(), /external/i);

    // A link to an id the model does not have says so.
    await page.evaluate(() => { location.hash = '#id=' + encodeURIComponent('java:no.such/Thing'); });
    await page.locator('#selection.error').waitFor();

    // Reloading the deep link opens the same selection.
    await page.evaluate((id) => { location.hash = '#id=' + encodeURIComponent(id); }, MONEY);
    await page.reload({ waitUntil: 'load' });
    await page.locator(`#selection[data-id="${MONEY}"]`).waitFor({ timeout: 30_000 });

    // Cycles: the two type cycles.
    await page.click('#tab-cycles');
    const types = page.locator('.cycle-level[data-level="type"]');
    await types.waitFor({ timeout: 30_000 });
    assert.equal(await types.getAttribute('data-components'), '2');
    const text = await page.locator('#cycles').innerText();
    assert.match(text, /Basket/);
    assert.match(text, /Priceable/);
    await shot(page, 'nav-cycles');

    // Graph of Money's neighbourhood.
    await page.click('#tab-graph');
    await page.click('#graph-selection');
    await page.locator('#graph-svg .gnode').first().waitFor({ timeout: 30_000 });
    await shot(page, 'nav-graph');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the demo: full-text search over the explanations, and stale marking after a source change', async () => {
  const context = await browser.newContext();
  const { page } = await open(context, DEMO_BY_HAND);
  try {
    await planned(page);
    await runAndConfirm(page);
    await finished(page);
    await page.click('#tab-navigate');
    await navReady(page);

    // A documentation comment from the corpus holding <script> is shown as text.
    await page.fill('#tree-search', 'setNickname');
    await page.locator('#search-results .hit').first().click();
    const doc = page.locator('#doc');
    await doc.waitFor();
    await doc.locator('summary').click();
    assert.match(await doc.innerText(), /<script>alert\(1\)<\/script>/);
    assert.equal(await page.locator('#selection script').count(), 0);

    // Full-text search finds units by the words of their explanations.
    // The demo's answers are written from the code's facts: find the
    // operations that throw RentalException by those words.
    await page.fill('#text-search', 'throws RentalException');
    const hits = page.locator('#text-hits .text-hit');
    await hits.first().waitFor({ timeout: 30_000 });
    assert.ok((await hits.count()) > 0);
    const was = await page.locator('#selection').getAttribute('data-id');
    await hits.first().locator('button').click();
    await page.waitForFunction((was) => document.querySelector('#selection')?.dataset.id !== was, was);
    await page.locator('#insight[data-status="explained"]').waitFor();
    const insight = await page.locator('#insight').innerText();
    assert.match(insight, /demo \(not an LLM\)/i);
    assert.match(insight, /Written from the code's facts, not by an LLM: The (method|constructor) /);
    assert.match(insight, /It throws [^.]*RentalException/);
    await page.locator('#insight[data-stale="false"]').waitFor();

    // Change one source file (a folder picked by hand), plan again: its units are stale, with why.
    const dir = mkdtempSync(join(tmpdir(), 'e2e-stale-'));
    const java = join(dir, 'java');
    cpSync(join(ROOT, 'fixtures/demo/src/main/java'), java, { recursive: true });
    const file = join(java, 'com/pedalpoint/common/Money.java');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/\}\s*$/, '    // changed by the test\n}\n'));
    await page.click('#tab-explain');
    await page.setInputFiles('#pick-folder', java);
    await page.locator('#source-status[data-state="loaded"]').waitFor();
    await page.waitForFunction(() => Number(document.querySelector('#plan-status[data-state="planned"]')?.dataset.calls ?? 0) > 0, null, { timeout: 30_000 });
    await page.click('#tab-navigate');
    await select(page, 'java:com.pedalpoint.common/Money');
    const stale = page.locator('#insight[data-stale="true"]');
    await stale.waitFor({ timeout: 30_000 });
    assert.match(await page.locator('#stale').innerText(), /Stale/);
    await shot(page, 'nav-stale');

    // A shared link to an explained unit, opened afresh, shows its
    // explanation without another click (the store opens after the tree).
    await page.close();
    const shared = 'java:com.pedalpoint.common/Money';
    const link = await open(context, `?demo#id=${encodeURIComponent(shared)}`);
    await link.page.locator(`#selection[data-id="${shared}"]`).waitFor({ timeout: 60_000 });
    await link.page.locator('#insight[data-status="explained"]').waitFor({ timeout: 30_000 });
  } finally {
    await context.close();
  }
});

test('during a run, an explanation appears in the navigator as its unit commits', async () => {
  const context = await browser.newContext();
  const { page } = await open(context, '?model=fixtures/upstream-java/model.jsonl&plan=1');
  try {
    await planned(page);
    await page.selectOption('#provider-kind', 'openai-compatible');
    await providerMore(page);
    await page.fill('#provider-base-url', SLOW);
    await page.fill('#concurrency', '2');
    await runAndConfirm(page);
    await page.locator('#run-status[data-state="running"]').waitFor({ timeout: 30_000 });
    await page.click('#tab-navigate');
    await navReady(page);
    // The top module is the walk's last unit: not explained when selected, explained once committed.
    await select(page, 'java:com.acme.order');
    await page.locator('#insight[data-status="unknown"]').waitFor();
    await page.locator('#insight[data-status="explained"]').waitFor({ timeout: 90_000 });
    assert.equal(await page.locator('#selection').getAttribute('data-id'), 'java:com.acme.order');
  } finally {
    await context.close();
  }
});

/** A synthetic model (`cargo xtask synth`) big enough for hundreds of cycle rows, written once. */
let synthModel;
function synth() {
  if (!synthModel) {
    synthModel = join(mkdtempSync(join(tmpdir(), 'e2e-synth-')), 'model.jsonl');
    const args = ['run', '-q', '-p', 'xtask', '--', 'synth', '--entities', '30000', '--edges', '97000', '--seed', '1', '--out', synthModel];
    execFileSync('cargo', args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return synthModel;
}

test('after a load the tabs say preparing… until the Worker has built the navigator, never "Load a model"', async () => {
  const model = synth();
  const context = await browser.newContext();
  // Every text the navigator's loading state shows, as it is shown.
  await context.addInitScript(() => {
    const seen = (globalThis.__navTexts = []);
    new MutationObserver(() => {
      for (const el of document.querySelectorAll('#nav-preparing, #cycles-preparing, #graph .preparing')) {
        if (!seen.includes(el.textContent)) seen.push(el.textContent);
      }
      const hint = document.querySelector('#navigate > .hint');
      if (hint && !seen.includes(hint.textContent)) seen.push(hint.textContent);
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  const { page, problems } = await open(context, '');
  try {
    await workerReady(page);
    await page.setInputFiles('#pick-model', model);
    await page.locator('#model-status[data-state="loaded"]').waitFor({ timeout: 60_000 });
    await page.click('#tab-navigate');
    await page.locator('.tree-row').first().waitFor({ timeout: 60_000 });
    const texts = await page.evaluate(() => globalThis.__navTexts);
    assert.ok(texts.some((t) => /^Preparing the navigator…/.test(t)), `shown: ${JSON.stringify(texts)}`);
    assert.ok(!texts.some((t) => /Load a model/.test(t)), `shown: ${JSON.stringify(texts)}`);
    // Built once, in the idle time after the load: its facts follow.
    await page.locator('#nav-facts').waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the Cycles list renders only a window of its rows, scrolls to the last cycle, and its members open in Navigate', async () => {
  const model = synth();
  const context = await browser.newContext();
  const { page, problems } = await open(context, '');
  try {
    await workerReady(page);
    await page.setInputFiles('#pick-model', model);
    await page.locator('#model-status[data-state="loaded"]').waitFor({ timeout: 60_000 });
    await page.click('#tab-cycles');
    const facts = page.locator('#cycles-facts');
    await facts.waitFor({ timeout: 60_000 });
    const total = Number(await facts.getAttribute('data-total'));
    const cycles = Number(await facts.getAttribute('data-cycles'));
    const rows = page.locator('#cycles .cycle-row');
    await rows.first().waitFor();
    const domRows = await rows.count();
    assert.ok(total > 4 * domRows, `${domRows} rows in the DOM of ${total} (${cycles} cycles)`);
    assert.ok(domRows <= 200, `${domRows} rows in the DOM`);
    const modules = Number(await page.locator('.cycle-level[data-level="module"]').getAttribute('data-components'));
    assert.ok(cycles > modules, `${cycles} cycles, ${modules} of modules`);
    await shot(page, 'cycles-top');

    // Scrolled to the bottom: the last row and the last type cycle are there, still a window.
    await page.locator('#cycles-scroll').evaluate((el) => { el.scrollTop = el.scrollHeight; });
    const last = page.locator(`#cycles .cycle-row[style*="top: ${(total - 1) * 24}px"]`);
    await last.waitFor({ timeout: 30_000 });
    const heading = page.locator('#cycles .cycle-row.cycle').last();
    assert.equal(await heading.getAttribute('data-level'), 'type');
    assert.equal(await heading.getAttribute('data-index'), String(cycles - modules));
    assert.ok((await rows.count()) <= 200);
    await shot(page, 'cycles-bottom');

    // A member opens in Navigate.
    const member = page.locator('#cycles .cycle-member button.member').last();
    const name = await member.innerText();
    await member.click();
    await page.locator('#selection[data-id]').waitFor({ timeout: 30_000 });
    const selected = await page.locator('#selection h2').innerText();
    assert.ok(selected.includes(name), `${JSON.stringify(selected)} names ${JSON.stringify(name)}`);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
