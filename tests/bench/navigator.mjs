// `cargo xtask bench navigator --browser` (browser part), one run per
// invocation; prints one JSON line. Times are `performance.now()` milliseconds
// in the page (see common.mjs).
//
//   node tests/bench/navigator.mjs MODEL_PATH NODE_ID [TIMEOUT_SECONDS]
//
// A fresh browser opens ?model=MODEL_PATH and the Navigate tab, then:
//   tree   when the model is loaded (#model-status "loaded"), when the Worker's
//          NavReady arrived (its build time is #nav-facts[data-millis]) and
//          when the first .tree-row is in the DOM;
//   search every keystroke of a few queries typed into #tree-search one
//          character at a time, and a few pasted at once: from the input event
//          until the page has handled the Worker's answer (NavSearch) and
//          rendered it, with #search-note's text then;
//   select NODE_ID (the node with the most dependency rows) reached by
//          setting location.hash = '#id=…', from setting it until the first
//          .dep-row of that selection is in the DOM; three times, another row
//          of the tree selected in between.
import { launch, BASE_URL, instrument, collected, reached, numbers, timed, messageSeen, longTasksBetween } from './common.mjs';

const [modelPath, nodeId, timeoutSeconds = 600] = process.argv.slice(2);
if (!modelPath || !nodeId) throw new Error('usage: navigator.mjs MODEL_PATH NODE_ID [TIMEOUT_SECONDS]');
const timeout = Number(timeoutSeconds) * 1000;
const TYPED = ['accrualsavings', 'getSavings', 'String', 'zzzq'];
const PASTED = ['AccrualSavingsListener', 'findStaff', '(java.lang.String'];
const SELECTIONS = 3;

const browser = await launch();
try {
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  const detail = async () => `problems: ${JSON.stringify(problems)}`;
  await instrument(page, { firsts: { treeRow: '.tree-row' } });
  await page.goto(new URL(`?model=${encodeURIComponent(modelPath)}`, BASE_URL).href);
  await page.click('#tab-navigate');
  const loaded = await reached(page, 'model-status', 'loaded', timeout, detail);
  await page.locator('.tree-row').first().waitFor({ timeout });
  const facts = await numbers(page.locator('#nav-facts'), ['millis', 'nodes']);
  // The Worker opens the model's store after the navigator: measure once it is idle.
  await messageSeen(page, 'store_opened', 60_000).catch(() => problems.push('no store_opened within 60 s'));
  const { marks, messages } = await collected(page);
  const navReady = messages.find((m) => m.type === 'nav_ready');
  const tree = {
    readMillis: (await numbers(loaded, ['millis'])).millis,
    buildMillis: facts.millis,
    nodes: facts.nodes,
    loadedAt: marks['model-status:loaded'],
    navReadyAt: navReady?.at ?? null,
    treeRowAt: marks.treeRow,
    loadedToTreeRowMs: marks.treeRow - marks['model-status:loaded'],
  };

  const search = [];
  const input = page.locator('#tree-search');
  const keystroke = async (query, typed, act) => {
    const t = await timed(page, { startEvent: 'input', startSelector: '#tree-search', until: { message: 'nav_search' } }, act);
    const note = await page.locator('#search-note').textContent().catch(() => null);
    const { ms, paintedMs, receivedMs = null, timedOut = false } = t;
    search.push({ query, typed, ms, paintedMs, receivedMs, note, timedOut });
  };
  for (const word of TYPED) {
    await input.fill('');
    await input.focus();
    for (let end = 1; end <= word.length; end++) {
      await keystroke(word.slice(0, end), true, () => page.keyboard.type(word[end - 1]));
    }
  }
  for (const word of PASTED) {
    await input.fill('');
    await keystroke(word, false, () => input.fill(word));
  }
  await input.fill('');

  const selections = [];
  const quoted = nodeId.replace(/["\\]/g, '\\$&');
  for (let i = 0; i < SELECTIONS; i++) {
    // Another node first, so that the hash changes (selecting rewrites it).
    await page.locator('.tree-row:not(.selected)').first().click();
    await page.locator(`#selection[data-id]:not([data-id="${quoted}"])`).waitFor({ timeout });
    const before = (await collected(page)).longTasks.length;
    const t = await timed(page, { until: { selector: `#selection[data-id="${quoted}"] .dep-row` }, timeout }, () =>
      page.evaluate((id) => {
        globalThis.__bench.begin();
        location.hash = `#id=${encodeURIComponent(id)}`;
      }, nodeId),
    );
    const selected = page.locator(`#selection[data-id="${quoted}"]`);
    await selected.waitFor({ timeout });
    await page.waitForTimeout(200);
    const { longTasks } = await collected(page);
    const answer = t.messages.find((m) => m.type === 'nav_selected');
    selections.push({
      ms: t.ms,
      paintedMs: t.paintedMs,
      timedOut: !!t.timedOut,
      answerReceivedMs: answer?.ms ?? null,
      incoming: Number(await selected.locator('.pane.incoming').getAttribute('data-total')),
      outgoing: Number(await selected.locator('.pane.outgoing').getAttribute('data-total')),
      rowsRendered: await selected.locator('.dep-row').count(),
      longestUiTaskMs: longTasksBetween(longTasks.slice(before), 0, Infinity).longestMs,
    });
  }
  console.log(JSON.stringify({ node: nodeId, typedWords: TYPED, pastedWords: PASTED, tree, search, selections, problems }));
} finally {
  await browser.close();
}
