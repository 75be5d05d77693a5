// The Domain tab: after the demo's run (its offline answers give no hint or
// concept, so each module is a context of its own and nothing is invented),
// then with a side-car whose answers carry hints, concepts and terms: the
// coverage line, the context map drawn, a context's aggregate, the glossary
// with its filter and a term defined two ways, links into Navigate, the
// Markdown zip, and answer markup kept as text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launch, need } from './browser.mjs';
import { open, shot, finished, planned, demoSidecar, DEMO_BY_HAND } from './app.mjs';

const CLI = need('E2E_CLI');
const RENTAL = 'java:com.pedalpoint.rental/Rental';
const CUSTOMER = 'java:com.pedalpoint.rental/Customer';
const MARKUP = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** The demo explained by the CLI's offline demo, then given a domain by hand. */
function domainSidecar() {
  const hints = {
    'java:com.pedalpoint.rental': ['Rentals', [['Rental', `a bike hired by a customer ${MARKUP}`]]],
    'java:com.pedalpoint.billing': ['Rentals', [['Invoice', 'what a customer pays']]],
    'java:com.pedalpoint.fleet': ['Fleet', [['Rental', 'a bike out of its station']]],
  };
  const { sidecar } = demoSidecar(CLI, (block, id) => {
    if (hints[id]) {
      const [name, terms] = hints[id];
      block.boundedContextHint = { name, rationale: `${name} owns it` };
      block.ubiquitousLanguage = terms.map(([term, definition]) => ({ term, definition }));
    }
    if (id === RENTAL) {
      Object.assign(block, {
        concept: 'aggregate',
        aggregateRoot: true,
        stateMachine: { states: ['OPEN', 'FINISHED'], transitions: [{ from: 'OPEN', to: 'FINISHED', operation: 'finish' }] },
      });
    }
    if (id === CUSTOMER) Object.assign(block, { concept: 'entity', containedIn: 'Rental' });
  });
  return sidecar;
}

async function domainShown(page, contexts) {
  await page.click('#tab-domain');
  const coverage = page.locator(`#domain-coverage[data-contexts="${contexts}"]`);
  await coverage.waitFor({ timeout: 30_000 });
  return coverage;
}

test('the Domain tab after the demo run: one context per module, every type counted, nothing invented', async () => {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const { page, problems } = await open(context, '?demo');
  try {
    const done = await finished(page);
    assert.equal(await done.getAttribute('data-state'), 'finished');
    const coverage = await domainShown(page, 5);
    const types = Number(await coverage.getAttribute('data-types'));
    assert.ok(types > 20, `${types} types`);
    assert.equal(await coverage.getAttribute('data-explained'), String(types), 'the demo explains every type');
    assert.match(await coverage.innerText(), new RegExp(`^${types} of ${types} types explained`));
    // The map: a box per context.
    await page.locator('#domain-map .gnode.context[data-node]').first().waitFor();
    assert.equal(await page.locator('#domain-map .gnode.context[data-node]').count(), 5);
    // The demo's answers name no concept: no aggregate is made up.
    assert.equal(await page.locator('#domain .aggregate').count(), 0);
    // Its terms are the words its answers list, none defined by a module.
    const terms = page.locator('#glossary-terms li.term');
    assert.ok((await terms.count()) > 0);
    assert.equal(await page.locator('#glossary-terms li.term.conflicting').count(), 0);
    for (const text of await terms.allInnerTexts()) assert.match(text, /not defined by any module/);
    // Beside the context card the glossary scrolls in its own box, which
    // the keyboard can reach; the page stays about a screen and a half.
    const box = await page.locator('#glossary-terms').evaluate((ul) => ({
      scroll: ul.scrollHeight,
      client: ul.clientHeight,
      tab: ul.tabIndex,
      page: document.documentElement.scrollHeight,
    }));
    assert.ok(box.scroll > box.client && box.client <= 0.7 * 900 + 1, JSON.stringify(box));
    assert.equal(box.tab, 0);
    assert.ok(box.page < 2 * 900, JSON.stringify(box));
    await shot(page, 'domain-demo');
    // On a phone the card and the glossary stack, and the glossary scrolls with the page.
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, 'domain-demo-390');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('with hints, concepts and terms: contexts, the aggregate, the glossary, links, the zip, inert text', async () => {
  const sidecar = domainSidecar();
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
  const { page, problems } = await open(context, DEMO_BY_HAND);
  try {
    await planned(page);
    await page.setInputFiles('#pick-sidecar', sidecar);
    await page.waitForFunction(() => Number(document.querySelector('#store-status')?.dataset.records ?? 0) > 100, null, { timeout: 30_000 });
    // rental and billing share a hint: 4 contexts.
    await domainShown(page, 4);
    const boxes = page.locator('#domain-map .gnode.context[data-node]');
    assert.equal(await boxes.count(), 4);
    // Click the Rentals box: its card, with the aggregate and its entity.
    await page.locator('#domain-map .gnode.context[aria-label="rentals"]').click();
    const card = page.locator('#domain-context[data-key="rentals"]');
    await card.waitFor();
    const aggregate = card.locator(`.aggregate[data-root="${RENTAL}"]`);
    await aggregate.waitFor();
    assert.match(await aggregate.innerText(), /Entities: Customer/);
    assert.match(await card.innerText(), /OPEN → FINISHED \(finish\)/);
    assert.match(await card.innerText(), /Rentals owns it/);
    await shot(page, 'domain-rentals');

    // The glossary: filtered (by a word of a definition), the term defined
    // two ways flagged, the markup as text.
    await page.fill('#glossary-filter', 'a bike');
    const term = page.locator('#glossary-terms li.term[data-term="Rental"]');
    await term.waitFor();
    assert.equal(await page.locator('#glossary-terms li.term').count(), 1);
    assert.ok(await term.evaluate((li) => li.classList.contains('conflicting')));
    assert.match(await term.innerText(), /defined differently in two contexts/i);
    assert.ok((await term.innerText()).includes(MARKUP), 'the definition as text');
    assert.equal(await page.locator('#panel-domain img, #panel-domain script').count(), 0);
    assert.equal(await page.evaluate(() => window.__pwned ?? null), null);

    // The Markdown, as a zip of the same files the CLI writes.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#domain-download')]);
    assert.equal(download.suggestedFilename(), 'model.domain.zip');
    const zip = readFileSync(await download.path()).toString('latin1');
    for (const file of ['model.domain/index.md', 'model.domain/rentals.md', 'model.domain/fleet.md']) {
      assert.ok(zip.includes(file), `${file} in the zip`);
    }

    // Any unit is a link into Navigate.
    await card.locator(`button.unit[data-id="${CUSTOMER}"]`).first().click();
    await page.locator(`#selection[data-id="${CUSTOMER}"]`).waitFor({ timeout: 30_000 });
    assert.equal(await page.getAttribute('#tab-navigate', 'aria-selected'), 'true');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
