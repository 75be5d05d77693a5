// Corpus text and model answers are data: markup in a model's answer and in
// a source line stays text in every place the page shows them — the
// insight panel (name, description, facts), the search over explanations,
// Explore's map, and the source in Explore's snippets and source modes and
// in the navigator's documentation. Nothing is parsed as HTML: no element
// is created from them, nothing runs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, need } from './browser.mjs';
import { open, shot, planned, ask, demoSidecar } from './app.mjs';

const CLI = need('E2E_CLI');
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CUSTOMER = 'java:com.pedalpoint.rental/Customer';
const SET_NICKNAME = 'java:com.pedalpoint.rental/Customer.setNickname(java.lang.String)';
/** What a hostile answer carries; `inertmark` finds it again. */
const MARKUP = 'inertmark <img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script><b>bold</b>';
/** The demo source's documentation comment of setNickname. */
const DOC_MARKUP = '<script>alert(1)</script>';
/** A line of setNickname's body, as the test's copy of the demo source has it. */
const SOURCE_LINE = 'this.nickname = nickname; // <img src=x onerror="window.__pwned=3"><b>bold</b>';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** The demo explained by the CLI's offline demo, Customer's answer then made hostile. */
function hostileSidecar() {
  let found = false;
  const { sidecar } = demoSidecar(CLI, (block, id) => {
    if (id !== CUSTOMER) return;
    found = true;
    block.name = `Customer ${MARKUP}`;
    block.description = `${MARKUP} A rider.`;
    block.fields[0].type = MARKUP;
  });
  assert.ok(found, 'the demo explains Customer');
  return sidecar;
}

/** The demo's source folder with markup in a line of setNickname's body (lines stay where they were). */
function hostileSource() {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-inert-src-'));
  cpSync(join(ROOT, 'fixtures/demo/src/main/java'), dir, { recursive: true });
  const file = join(dir, 'com/pedalpoint/rental/Customer.java');
  const text = readFileSync(file, 'utf8');
  assert.ok(text.includes('        this.nickname = nickname;\n'));
  writeFileSync(file, text.replace('        this.nickname = nickname;\n', `        ${SOURCE_LINE}\n`));
  return dir;
}

/** No element was made from the markup anywhere in the page, and nothing ran. */
async function nothingParsed(page, where) {
  const found = await page.evaluate(() => ({
    img: document.querySelectorAll('img[src="x"]').length,
    scripts: [...document.querySelectorAll('body script')].length,
    bold: [...document.querySelectorAll('b')].filter((b) => b.textContent === 'bold').length,
    pwned: window.__pwned ?? null,
  }));
  assert.deepEqual(found, { img: 0, scripts: 0, bold: 0, pwned: null }, where);
}

test('markup in a model answer and in a source line is text everywhere it is shown', async () => {
  const sidecar = hostileSidecar();
  const context = await browser.newContext();
  const { page, problems } = await open(context, '?model=fixtures/demo/model.jsonl&plan=1');
  try {
    await planned(page);
    await page.setInputFiles('#pick-folder', hostileSource());
    await page.locator('#source-status[data-state="loaded"][data-matched="23"]').waitFor({ timeout: 30_000 });
    await page.setInputFiles('#pick-sidecar', sidecar);
    await page.waitForFunction(() => Number(document.querySelector('#store-status')?.dataset.records ?? 0) > 100, null, { timeout: 30_000 });

    // The insight panel: name, description and a fact.
    await page.click('#tab-navigate');
    await page.evaluate((id) => { location.hash = `#id=${encodeURIComponent(id)}`; }, CUSTOMER);
    const insight = page.locator(`#selection[data-id="${CUSTOMER}"] #insight[data-status="explained"]`);
    await insight.waitFor({ timeout: 30_000 });
    await insight.locator('details.facts-list summary').click();
    const shown = await insight.innerText();
    assert.ok(shown.includes(`${MARKUP} A rider.`), `the description as text: ${shown}`);
    assert.ok(shown.split(MARKUP).length - 1 >= 2, `the description and the field's type: ${shown}`);
    await nothingParsed(page, 'insight panel');

    // The search over explanations: the hit's snippet.
    await page.fill('#text-search', 'inertmark');
    const hit = page.locator('#text-hits .text-hit').first();
    await hit.waitFor({ timeout: 30_000 });
    assert.match(await hit.innerText(), /<img src=x onerror=|<script>window\.__pwned=2<\/script>/);
    await nothingParsed(page, 'text search');

    // The navigator's documentation of a member: the source's comment.
    await page.evaluate((id) => { location.hash = `#id=${encodeURIComponent(id)}`; }, SET_NICKNAME);
    const doc = page.locator(`#selection[data-id="${SET_NICKNAME}"] #doc`);
    await doc.waitFor({ timeout: 30_000 });
    await doc.locator('summary').click();
    assert.ok((await doc.innerText()).includes(DOC_MARKUP));
    await shot(page, 'inert-navigate');
    await nothingParsed(page, 'documentation');

    // Explore: the answer beside its symbol in the map, then the source in
    // the snippets and source modes (their Markdown, shown folded).
    await page.click('#tab-explore');
    await ask(page, 'Customer');
    // The map shortens an explanation to its first words: the markup leads it.
    const map = await page.locator('#explore-answer').innerText();
    assert.ok(map.includes('inertmark <img src=x onerror='), `the explanation beside Customer: ${map}`);
    await nothingParsed(page, 'explore map');
    for (const mode of ['snippets', 'source']) {
      const answer = await ask(page, `Customer.setNickname mode:${mode}`);
      assert.equal(await answer.getAttribute('data-mode'), mode);
      const markdown = await page.locator('#explore-map').textContent();
      assert.ok(markdown.includes(SOURCE_LINE), `the source line in ${mode}: ${markdown}`);
      await nothingParsed(page, `explore ${mode}`);
    }
    await shot(page, 'inert-explore');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
