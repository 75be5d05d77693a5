// Explore in the page: a question in, a compact map out, with links into
// the navigator, the mode switch and its precedence, copy as Markdown, and
// the explanations already bought shown beside the symbols.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch } from './browser.mjs';
import { open, shot, planned, runAndConfirm, finished, ask, DEMO_BY_HAND } from './app.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test('explore the demo: map, modes, links into the navigator, copy, explanations', async () => {
  const context = await browser.newContext();
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const { page, problems } = await open(context, DEMO_BY_HAND);
  try {
    await planned(page);
    await page.click('#tab-explore');
    let answer = await ask(page, 'how is a rental priced?');
    assert.equal(await answer.getAttribute('data-mode'), 'map');
    assert.ok(Number(await answer.getAttribute('data-symbols')) > 0);
    const map = await page.locator('#explore-map').textContent();
    assert.match(map, /Pricing/);
    assert.ok(map.length < 8000, `a map is compact: ${map.length} characters`);
    assert.doesNotMatch(map, /```java/, 'the map mode carries no bodies');

    // Copy as Markdown: the clipboard holds the map.
    await page.click('#explore-copy');
    assert.equal((await page.evaluate(() => navigator.clipboard.readText())).trim(), map.trim());

    // The mode switch (the user's setting), and a mode word in the question wins over it.
    await page.selectOption('#explore-mode', 'snippets');
    await page.waitForFunction(() => document.querySelector('#explore-answer')?.dataset.mode === 'snippets');
    answer = await ask(page, 'RentalService.finish mode:source');
    assert.equal(await answer.getAttribute('data-mode'), 'source');
    await page.selectOption('#explore-mode', 'map');

    // What the map echoes is text: markup in a question stays inert.
    answer = await ask(page, 'Money <img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>');
    assert.match(await page.locator('#explore-map').textContent(), /<script>window\.__pwned=2<\/script>/);
    assert.equal(await page.locator('#explore-answer script, #explore-answer img').count(), 0);
    assert.equal(await page.evaluate(() => window.__pwned ?? null), null);

    // A listed symbol opens in the navigator.
    answer = await ask(page, 'RentalService.finish');
    await page.locator('#explore-symbols button').first().click();
    await page.locator('#selection[data-category]').waitFor();
    assert.match(await page.locator('#selection').getAttribute('data-id'), /RentalService/);

    // From the navigator back to explore.
    await page.click('#explore-this');
    await page.locator('#explore-answer').waitFor();

    // After a run, the explanations sit beside the symbols, marked as generated.
    await page.click('#tab-explain');
    await runAndConfirm(page);
    await finished(page);
    await page.click('#tab-explore');
    answer = await ask(page, 'how is a rental priced?');
    assert.ok((await page.locator('#explore-symbols .inference').count()) > 0);
    assert.match(await page.locator('#explore-map').textContent(), /generated/i);
    await shot(page, 'explore');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('?mode= in the address beats the saved setting', async () => {
  const context = await browser.newContext();
  const { page } = await open(context, `${DEMO_BY_HAND}&mode=snippets`);
  try {
    await planned(page);
    await page.click('#tab-explore');
    const answer = await ask(page, 'Money');
    assert.equal(await answer.getAttribute('data-mode'), 'snippets');
  } finally {
    await context.close();
  }
});
