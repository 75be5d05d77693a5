// The first five minutes, as a new user meets them: the landing, the demo's
// guided look (plan, run offline, Navigate on a central unit), the plan on
// every load with its summary and one primary action, the provider card
// with its model list and errors beside their controls, no sideways scroll
// on a phone, and no serious or critical axe-core violation on any tab.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, need } from './browser.mjs';
import { open, shot, planned, finished, workerReady, providerMore } from './app.mjs';

const SLOW = need('E2E_MOCK_SLOW_URL');
const AXE = readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'node_modules/axe-core/axe.min.js'), 'utf8');
const TABS = ['explain', 'navigate', 'graph', 'cycles', 'explore', 'domain'];
const DESKTOP = { width: 1400, height: 900 };
const PHONE = { width: 390, height: 844 };

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** Pixels the page is wider than its window (0: no sideways scroll). */
function overflow(page) {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

/** The demo's guided look at `viewport`; returns the page once it is on Navigate. */
async function demo(viewport, colorScheme = 'light') {
  const context = await browser.newContext({ viewport, colorScheme });
  const opened = await open(context, '?demo');
  await finished(opened.page);
  await opened.page.locator('#tab-navigate[aria-selected="true"]').waitFor({ timeout: 30_000 });
  await opened.page.locator('#insight[data-status="explained"]').waitFor({ timeout: 30_000 });
  return { context, ...opened };
}

/** Opens each tab in turn (Explore with a question) and calls `check(tab)`. */
async function everyTab(page, check) {
  for (const tab of TABS) {
    await page.click(`#tab-${tab}`);
    await page.locator(`#tab-${tab}[aria-selected="true"]`).waitFor();
    if (tab === 'explore') {
      await page.fill('#explore-question', 'how is a rental finished?');
      await page.press('#explore-question', 'Enter');
      await page.locator('#explore-answer').waitFor({ timeout: 30_000 });
    }
    if (tab === 'graph') await page.locator('#graph-svg').waitFor({ timeout: 30_000 });
    if (tab === 'cycles') await page.locator('#cycles-facts').waitFor({ timeout: 30_000 });
    if (tab === 'domain') {
      await page.locator('#domain-coverage').waitFor({ timeout: 30_000 });
      await page.evaluate(() => document.querySelectorAll('#panel-domain details').forEach((d) => { d.open = true; }));
    }
    if (tab === 'explain') {
      // Everything the Explain tab folds away is opened, so its layout is checked too.
      await page.evaluate(() => document.querySelectorAll('#panel-explain details').forEach((d) => { d.open = true; }));
    }
    await check(tab);
  }
}

test('the landing explains itself: the demo is the primary action, three steps, no debug text', async () => {
  for (const [viewport, name] of [[DESKTOP, 'landing-1400'], [PHONE, 'landing-390']]) {
    const context = await browser.newContext({ viewport });
    const { page, problems } = await open(context, '');
    try {
      await workerReady(page);
      const demo = page.locator('#open-demo');
      assert.equal(await demo.innerText(), 'Try the demo');
      assert.match(await demo.getAttribute('class'), /\bprimary\b/);
      assert.equal(await page.locator('button.primary:visible').count(), 1, 'one primary action');
      assert.deepEqual(await page.locator('.steps li').allInnerTexts(), [
        'Load a model',
        'See the plan and what it costs',
        'Explain it with your provider',
      ]);
      // No debug line: the Worker's status is not shown once it is ready.
      assert.ok(!(await page.locator('body').innerText()).includes('worker ready'));
      // The file pickers are buttons, not the browser's "Choose File / No file chosen".
      for (const id of ['#pick-model', '#pick-source', '#pick-folder']) {
        assert.match(await page.locator(id).evaluate((i) => i.parentElement.className), /\bbutton\b/);
      }
      // Tabs that need a model wait for one.
      for (const tab of TABS.slice(1)) assert.ok(await page.locator(`#tab-${tab}`).isDisabled(), tab);
      // Dragging a file over the page highlights the drop zone.
      await page.dispatchEvent('main', 'dragover', {});
      await page.locator('main.dragging').waitFor();
      assert.equal(await overflow(page), 0);
      await shot(page, name);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  }
});

test('?demo plans, runs offline and opens Navigate on a central service, explained from its facts', async () => {
  const { context, page, problems } = await demo(DESKTOP);
  try {
    // A type is selected, with the demo's label on its explanation.
    const name = await page.locator('#selection .sel-name code').first().innerText();
    assert.ok(name.length > 0);
    assert.match(await page.locator('#selection .sel-name .badge').first().innerText(), /class|interface|type/i);
    assert.match(page.url(), /#id=/);
    // The tree's rows say their level; the selected type sits below its module.
    await page.locator('[role="tree"] [role="treeitem"][aria-level="1"]').first().waitFor();
    const selected = page.locator('[role="tree"] [role="treeitem"][aria-selected="true"]');
    await selected.waitFor();
    const level = Number(await selected.getAttribute('aria-level'));
    assert.ok(level >= 2, `the selected row's level is ${level}`);
    await shot(page, 'demo-navigate-1400');
    await page.click('#tab-graph');
    await page.locator('#graph-svg').waitFor({ timeout: 30_000 });
    await shot(page, 'graph-1400');
    await page.click('#tab-navigate');
    // The run screen ends the story with "Open the results", and says estimate against spent.
    await page.click('#tab-explain');
    await page.locator('#open-results').waitFor();
    assert.match(await page.locator('#run-versus').innerText(), /^estimated ~\d+ calls .*; spent \d+ calls/);
    await page.click('#open-results');
    await page.locator('#tab-navigate[aria-selected="true"]').waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('every load plans at once: a summary that stays in view, settings that re-plan, errors beside their control', async () => {
  const context = await browser.newContext({ viewport: DESKTOP });
  const { page, problems } = await open(context, '?model=fixtures/upstream-java/model.jsonl');
  try {
    const plan = await planned(page);
    assert.equal(await plan.getAttribute('data-calls'), '68');
    assert.equal(await page.locator('#summary-calls').innerText(), '68');
    assert.equal(await page.locator('#summary-units').innerText(), '77');
    assert.equal(await page.locator('#summary-cost').innerText(), 'free');
    assert.equal(await page.locator('#run-button').innerText(), 'Explain…');
    // A setting re-plans by itself; the summary follows.
    await page.click('#settings summary');
    await page.fill('#set-max-calls', '10');
    await page.locator('#set-max-calls').dispatchEvent('change');
    await page.locator('#plan-status[data-state="planned"][data-calls="10"]').waitFor({ timeout: 30_000 });
    await page.locator('#summary-calls', { hasText: /^10$/ }).waitFor();
    // The summary stays in view when the page scrolls.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const top = await page.locator('#summary').evaluate((e) => e.getBoundingClientRect().top);
    assert.ok(top >= 0 && top < 5, `summary top ${top}`);

    // OpenRouter without a key: a warning beside the key; Explain turns it into an error there, focused.
    await page.selectOption('#provider-kind', 'openrouter');
    assert.equal(await page.locator('#summary-cost').innerText(), 'set a price');
    const keyNote = page.locator('#provider-key-error');
    assert.match(await keyNote.innerText(), /^Needed to explain: an OpenRouter API key/);
    assert.equal(await page.getAttribute('#provider-key', 'aria-describedby'), 'provider-key-error');
    assert.match(await keyNote.getAttribute('class'), /field-warn/);
    await page.click('#run-button');
    await page.locator('#provider-key-error.field-error[role="alert"]').waitFor();
    assert.match(await page.locator('#run-error').innerText(), /an OpenRouter API key/);
    assert.equal(await page.getAttribute('#provider-key', 'aria-invalid'), 'true');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'provider-key');
    assert.equal(await page.locator('#confirm').count(), 0, 'no confirmation while something is missing');
    // Typing the key clears it.
    await page.fill('#provider-key', 'sk-test-not-a-real-key');
    await page.locator('#provider-key-error').waitFor({ state: 'detached' });

    // An OpenAI-compatible server: its model list is offered, and picking a model fills its prices in.
    await page.selectOption('#provider-kind', 'openai-compatible');
    await page.fill('#provider-base-url', SLOW);
    await page.focus('#set-model');
    await page.locator('#model-list-note', { hasText: /^2 models listed by the provider/ }).waitFor({ timeout: 30_000 });
    assert.deepEqual(await page.locator('#model-list option').evaluateAll((o) => o.map((x) => x.value)), ['openai/gpt-5.6-luna', 'mock/free']);
    await page.fill('#set-model', 'mock/free');
    await page.locator('#set-model').dispatchEvent('change');
    await page.waitForFunction(() => document.querySelector('#price-in')?.value === '0');
    await page.fill('#set-model', 'openai/gpt-5.6-luna');
    await page.locator('#set-model').dispatchEvent('change');
    await page.waitForFunction(() => document.querySelector('#price-in')?.value === '0.15');
    assert.equal(await page.inputValue('#price-out'), '0.6');
    await page.locator('#summary-cost', { hasText: /^~\$\d+\.\d{4}$/ }).waitFor();
    await providerMore(page);
    assert.ok(await page.locator('#concurrency').isVisible());
    await shot(page, 'summary-and-provider');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('on a phone (390×844, and 360 px) no tab scrolls sideways, in the light and the dark theme', async () => {
  for (const scheme of ['light', 'dark']) {
    const { context, page, problems } = await demo(PHONE, scheme);
    try {
      await shot(page, `demo-navigate-390-${scheme}`);
      await everyTab(page, async (tab) => {
        assert.equal(await overflow(page), 0, `${tab} (${scheme}) is wider than the phone`);
        if (scheme === 'light' && (tab === 'explain' || tab === 'graph')) await shot(page, `${tab}-390`);
      });
      if (scheme === 'light') {
        // The narrowest phone the page promises to fit.
        await page.setViewportSize({ width: 360, height: 740 });
        await everyTab(page, async (tab) => assert.equal(await overflow(page), 0, `${tab} is wider than 360 px`));
      }
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  }
});

test('axe-core finds no serious or critical violation on any tab of the demo, light or dark', async () => {
  for (const scheme of ['light', 'dark']) {
    const { context, page, problems } = await demo(DESKTOP, scheme);
    try {
      // Through the DevTools protocol: the page's policy allows no inline script.
      await page.evaluate(AXE);
      const found = [];
      await everyTab(page, async (tab) => {
        const result = await page.evaluate(async () => {
          const r = await globalThis.axe.run(document, { resultTypes: ['violations'] });
          return r.violations
            .filter((v) => v.impact === 'serious' || v.impact === 'critical')
            .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
        });
        for (const v of result) found.push(`${scheme} ${tab}: ${v}`);
      });
      assert.deepEqual(found, []);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  }
});
