// `cargo xtask bench page` (browser part), one run per invocation; prints one
// JSON line. Times are `performance.now()` milliseconds since navigation start,
// taken when a status element first shows a state (see common.mjs).
//
//   node tests/bench/page.mjs model MODEL_PATH [TIMEOUT_SECONDS]
//     A fresh browser opens ?model=MODEL_PATH&plan=1: when loading starts
//     (#model-status "reading"), when the model is loaded and when the plan is
//     shown; the Worker's own read and plan figures; the UI thread's long tasks
//     before loading starts, while loading, and while planning and rendering
//     the plan.
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
 * The Worker's own time to build the navigator, which it does after the read
 * and before the plan; shown on the Navigate tab, so read after everything
 * else (null on a page without a navigator).
 */
async function navigatorMillis(page) {
  if (!(await page.locator('#tab-navigate').count())) return null;
  await page.click('#tab-navigate');
  const facts = page.locator('#nav-facts');
  await facts.waitFor({ timeout: 10_000 });
  return Number(await facts.getAttribute('data-millis'));
}

async function model(modelPath, timeoutSeconds = 1800) {
  const timeout = Number(timeoutSeconds) * 1000;
  const browser = await launch();
  try {
    const context = await browser.newContext();
    await instrument(context);
    const path = `?model=${encodeURIComponent(modelPath)}&plan=1`;
    const { page, loaded, planned } = await openAndPlan(context, path, timeout);
    // Long-task entries arrive after their task; the plan's first table page is fetched after it is shown.
    await page.waitForTimeout(1000);
    const { longTasks, marks } = await collected(page);
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
        planning: longTasksBetween(longTasks, marks['model-status:loaded'], Infinity),
      },
      text: await planned.innerText(),
      // Last: it opens the Navigate tab.
      navMillis: await navigatorMillis(page),
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

const runs = { model, drop, demo };
if (!runs[mode]) throw new Error('usage: page.mjs model MODEL_PATH [TIMEOUT_SECONDS] | drop MODEL_PATH [TIMEOUT_SECONDS] | demo [TIMEOUT_SECONDS]');
console.log(JSON.stringify(await runs[mode](...rest)));
