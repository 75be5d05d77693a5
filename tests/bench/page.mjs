// `cargo xtask bench page` (browser part), one run per invocation; prints one
// JSON line. Times are `performance.now()` milliseconds since navigation start,
// taken when a status element first shows a state (see common.mjs).
//
//   node tests/bench/page.mjs model MODEL_PATH [TIMEOUT_SECONDS]
//     A fresh browser opens ?model=MODEL_PATH&plan=1: when loading starts
//     (#model-status "reading"), when the model is loaded and when the plan is
//     shown; the Worker's own read and plan figures; the UI thread's long tasks
//     before loading starts, while loading, and while planning and rendering
//     the plan. Then, in the same page right after the plan is shown, the
//     Navigate tab is opened (when its first tree row is in the DOM, and the
//     Worker's own build figure), then the Cycles tab (when its first row
//     is in the DOM, how many rows the DOM holds, and the longest UI-thread
//     task from the click until a second after the first row).
//
//   node tests/bench/page.mjs runstart MODEL_PATH [TIMEOUT_SECONDS]
//     The same, then a run (the offline demo provider) confirmed the moment
//     the plan is shown, while the Worker prepares the navigator: confirm ->
//     the run's first progress shown.
//
//   node tests/bench/page.mjs drop MODEL_PATH [TIMEOUT_SECONDS]
//     A fresh browser opens the landing, then a model file is dropped on the
//     page (a real `drop` event carrying the file): from the drop until the
//     plan is shown (every load plans at once), the long tasks meanwhile.
//
//   node tests/bench/page.mjs demo [TIMEOUT_SECONDS]
//     The bundled demo (?demo) opened twice in one browser context, the first
//     to warm the HTTP cache (and the store in OPFS): for each load, the first
//     contentful paint and when the model summary, the source and the plan are
//     first shown; what the page and its Worker fetched (bytes, and when each
//     file arrived).
import { launch, BASE_URL, instrument, collected, longTasksBetween, reached, numbers } from './common.mjs';

const [mode, ...rest] = process.argv.slice(2);
/** A row of the Cycles list (a cycle's heading; before the list was virtualised, a cycle's block). */
const CYCLE_ROW = '#cycles .cycle';

/** Opens `path` in `context` and waits until the plan is shown (and, if asked, the source). */
async function openAndPlan(context, path, timeout, { source = false } = {}) {
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(msg.text());
  });
  const detail = async () => `problems: ${JSON.stringify(problems)}`;
  await page.goto(new URL(path, BASE_URL).href, { waitUntil: 'commit' });
  const loaded = await reached(page, 'model-status', 'loaded', timeout, detail);
  const planned = await reached(page, 'plan-status', 'planned', timeout, detail);
  if (source) await reached(page, 'source-status', 'loaded', timeout, detail);
  return { page, loaded, planned };
}

/**
 * What `target` (the page or its Worker) fetched: files, bytes transferred (a
 * file revalidated from the HTTP cache costs its headers only), and when each
 * file had arrived, in ms since the page's navigation start (`pageOrigin`, the
 * page's `performance.timeOrigin`; 0 for the page itself).
 */
async function fetches(target, pageOrigin) {
  const { origin, entries } = await target.evaluate(() => ({
    origin: performance.timeOrigin,
    entries: performance
      .getEntriesByType('navigation')
      .concat(performance.getEntriesByType('resource'))
      .map((e) => ({ name: e.name, end: e.responseEnd, bytes: e.transferSize })),
  }));
  const shift = pageOrigin ? origin - pageOrigin : 0;
  return {
    startedAt: shift,
    files: entries.length,
    bytes: entries.reduce((a, e) => a + e.bytes, 0),
    arrived: Object.fromEntries(entries.map((e) => [new URL(e.name).pathname.split('/').pop() || '/', e.end + shift])),
  };
}

/**
 * The Navigate tab opened the moment the plan is shown: the navigator is
 * built in the Worker's idle time after loading, so the tree should follow
 * within 1.5 s of the plan. Resolves when the first tree row is in the DOM
 * (null on a page without the tab).
 */
async function openNavigate(page, timeout) {
  if (!(await page.locator('#tab-navigate').count())) return null;
  const clickedAt = await page.evaluate(() => performance.now());
  await page.click('#tab-navigate');
  await page.locator('.tree-row').first().waitFor({ state: 'attached', timeout });
  const facts = page.locator('#nav-facts');
  await facts.waitFor({ state: 'attached', timeout });
  return { clickedAt, navMillis: Number(await facts.getAttribute('data-millis')) };
}

/**
 * Then the Cycles tab: when its first row is in the DOM after the click
 * (target 1 s), how many rows the DOM holds of how many cycles, and the
 * UI thread's longest task from the click until a second after the first
 * row (target 100 ms).
 */
async function openCycles(page, timeout) {
  const clickedAt = await page.evaluate(() => performance.now());
  await page.click('#tab-cycles');
  await page.locator(CYCLE_ROW).first().waitFor({ state: 'attached', timeout });
  await page.waitForTimeout(1000);
  const { longTasks, marks } = await collected(page);
  const total = page.locator('#cycles [data-cycles]');
  return {
    firstRowMs: marks.cycleRow - clickedAt,
    // The list items: virtualised rows, or (before) every member button and link line.
    domRows: await page.locator('#cycles .cycle-row, #cycles li, #cycles p > button.member').count(),
    cycles: (await total.count()) ? Number(await total.first().getAttribute('data-cycles')) : null,
    rows: (await total.count()) ? Number(await total.first().getAttribute('data-total')) : null,
    longTasks: longTasksBetween(longTasks, clickedAt, Infinity),
  };
}

async function model(modelPath, timeoutSeconds = 1800) {
  const timeout = Number(timeoutSeconds) * 1000;
  const browser = await launch();
  try {
    const context = await browser.newContext();
    await instrument(context, { firsts: { treeRow: '.tree-row', cycleRow: CYCLE_ROW } });
    const path = `?model=${encodeURIComponent(modelPath)}&plan=1`;
    const { page, loaded, planned } = await openAndPlan(context, path, timeout);
    const navigate = await openNavigate(page, timeout);
    // Long-task entries arrive after their task; the plan's first table page is fetched after it is shown.
    await page.waitForTimeout(1000);
    const { longTasks, marks } = await collected(page);
    const planningEnd = navigate ? navigate.clickedAt : Infinity;
    const reading = marks['model-status:reading'];
    const read = await numbers(loaded, ['millis', 'wasmMemory']);
    return {
      readingAt: reading,
      loadedAt: marks['model-status:loaded'],
      plannedAt: marks['plan-status:planned'],
      readMillis: read.millis,
      readWasmMemory: read.wasmMemory,
      ...(await numbers(planned, ['millis', 'wasmMemory', 'units', 'calls'])),
      jsHeap: await page.evaluate(() => performance.memory?.usedJSHeapSize ?? null),
      longTasks: {
        startup: longTasksBetween(longTasks, 0, reading),
        loading: longTasksBetween(longTasks, reading, marks['model-status:loaded']),
        planning: longTasksBetween(longTasks, marks['model-status:loaded'], planningEnd),
        ...(navigate ? { navigate: longTasksBetween(longTasks, navigate.clickedAt, Infinity) } : {}),
      },
      text: await planned.innerText(),
      navMillis: navigate?.navMillis ?? null,
      treeAfterPlanMs: navigate ? marks.treeRow - marks['plan-status:planned'] : null,
      // Last: it opens the Cycles tab.
      cycles: navigate ? await openCycles(page, timeout) : null,
    };
  } finally {
    await browser.close();
  }
}

async function drop(modelPath, timeoutSeconds = 120) {
  const timeout = Number(timeoutSeconds) * 1000;
  const browser = await launch();
  try {
    const context = await browser.newContext();
    await instrument(context);
    const page = await context.newPage();
    await page.goto(BASE_URL, { waitUntil: 'load' });
    await page.locator('#worker-status[data-state="ready"]').waitFor({ state: 'attached', timeout });
    // The file is in the page's memory before the drop, as a dragged file is.
    const droppedAt = await page.evaluate(async (path) => {
      const bytes = await (await fetch(path)).arrayBuffer();
      const file = new File([bytes], 'model.jsonl');
      const data = new DataTransfer();
      data.items.add(file);
      const at = performance.now();
      document.querySelector('main').dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
      return at;
    }, modelPath);
    const planned = await reached(page, 'plan-status', 'planned', timeout, async () => '');
    await page.waitForTimeout(500);
    const { longTasks, marks } = await collected(page);
    return {
      droppedAt,
      loadedAt: marks['model-status:loaded'],
      plannedAt: marks['plan-status:planned'],
      ...(await numbers(planned, ['millis', 'units', 'calls'])),
      longTasks: longTasksBetween(longTasks, droppedAt, Infinity),
    };
  } finally {
    await browser.close();
  }
}

async function demo(timeoutSeconds = 120) {
  const timeout = Number(timeoutSeconds) * 1000;
  const browser = await launch();
  try {
    const context = await browser.newContext();
    await instrument(context);
    const loads = [];
    for (let i = 0; i < 2; i++) {
      const { page, loaded, planned } = await openAndPlan(context, '?demo', timeout, { source: true });
      const read = await numbers(loaded, ['millis']);
      const plan = await numbers(planned, ['millis']);
      await page.waitForTimeout(300);
      const { longTasks, marks, firstContentfulPaint } = await collected(page);
      loads.push({
        firstContentfulPaint,
        modelShownAt: marks['model-status:loaded'],
        planShownAt: marks['plan-status:planned'],
        sourceShownAt: marks['source-status:loaded'],
        readMillis: read.millis,
        planMillis: plan.millis,
        storeReadOnly: await page.locator('#store-status').getAttribute('data-read-only'),
        longTasks: longTasksBetween(longTasks, 0, Infinity),
        page: await fetches(page, 0),
        worker: page.workers().length ? await fetches(page.workers()[0], await page.evaluate(() => performance.timeOrigin)) : null,
      });
      await page.close();
    }
    return { cold: loads[0], warm: loads[1] };
  } finally {
    await browser.close();
  }
}

/**
 * A run started the moment the plan is shown, while the Worker prepares the
 * navigator in its idle time: from the click on "confirm" until the run's
 * first progress is shown (`#run-status[data-state="running"]`), with the
 * offline demo provider; then the run is stopped.
 */
async function runstart(modelPath, timeoutSeconds = 1800) {
  const timeout = Number(timeoutSeconds) * 1000;
  const browser = await launch();
  try {
    const context = await browser.newContext();
    await instrument(context, { firsts: { running: '#run-status[data-state="running"]' } });
    const path = `?model=${encodeURIComponent(modelPath)}&plan=1`;
    const { page } = await openAndPlan(context, path, timeout);
    await page.click('#run-button');
    await page.locator('#confirm').waitFor();
    const clickedAt = await page.evaluate(() => performance.now());
    await page.click('#confirm-run');
    await page.locator('#run-status[data-state="running"]').waitFor({ state: 'attached', timeout });
    const { marks } = await collected(page);
    return { confirmToRunningMs: marks.running - clickedAt, planToConfirmMs: clickedAt - marks['plan-status:planned'] };
  } finally {
    await browser.close();
  }
}

const runs = { model, drop, demo, runstart };
if (!runs[mode]) throw new Error('usage: page.mjs model|runstart|drop MODEL_PATH [TIMEOUT_SECONDS] | demo [TIMEOUT_SECONDS]');
console.log(JSON.stringify(await runs[mode](...rest)));
