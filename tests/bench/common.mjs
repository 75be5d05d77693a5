// Shared by the browser benchmarks (tests/bench/*.mjs, run by `cargo xtask
// bench …`): the instrumentation installed before the page's scripts run, and
// waiting for the page's status elements.
export { launch, BASE_URL } from '../e2e/browser.mjs';

/**
 * Installs, in every page of `target` (a page or a browser context) before
 * its scripts run: a PerformanceObserver collecting the UI thread's long
 * tasks, and a MutationObserver noting when each status element
 * (`#model-status`, `#source-status`, `#plan-status`) first reached each
 * `data-state`, in `performance.now()` milliseconds since navigation start
 * (the moment the element is in the DOM; it is painted in the next frame).
 * Read them with `collected(page)`.
 */
export async function instrument(target) {
  await target.addInitScript(() => {
    const bench = (globalThis.__bench = { longTasks: [], marks: {} });
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) bench.longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
    const note = () => {
      for (const id of ['model-status', 'source-status', 'plan-status']) {
        const state = document.getElementById(id)?.dataset.state;
        const key = `${id}:${state}`;
        if (state && !(key in bench.marks)) bench.marks[key] = performance.now();
      }
    };
    new MutationObserver(note).observe(document, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['data-state'],
    });
  });
}

/** What `instrument` collected, and the first contentful paint (ms since navigation start). */
export async function collected(page) {
  return page.evaluate(() => ({
    ...globalThis.__bench,
    firstContentfulPaint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
  }));
}

/** Long tasks that started in [from, to): how many, the longest (ms) and when it started. */
export function longTasksBetween(longTasks, from, to) {
  const within = longTasks.filter((t) => t.start >= from && t.start < to);
  const longest = within.reduce((a, t) => (t.duration > a.duration ? t : a), { start: null, duration: 0 });
  return { count: within.length, longestMs: longest.duration, longestAt: longest.start };
}

/**
 * Waits until `#id` shows `data-state="state"` (or "failed", which throws with
 * the element's text and `detail()`'s, if given); returns its locator.
 */
export async function reached(page, id, state, timeout, detail = async () => '') {
  const status = page.locator(`#${id}[data-state="${state}"], #${id}[data-state="failed"]`);
  await status.waitFor({ timeout });
  if ((await status.getAttribute('data-state')) === 'failed') {
    const extra = await detail();
    throw new Error(`#${id}: ${(await status.innerText()).replaceAll('\n', ' ')}${extra ? `; ${extra}` : ''}`);
  }
  return status;
}

/** The numeric `data-…` attributes of a status element, by camel-cased name. */
export async function numbers(status, names) {
  const out = {};
  for (const name of names) {
    const attr = `data-${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    out[name] = Number(await status.getAttribute(attr));
  }
  return out;
}
