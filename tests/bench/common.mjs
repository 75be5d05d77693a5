// Shared by the browser benchmarks (tests/bench/*.mjs, run by `cargo xtask
// bench …`): the instrumentation installed before the page's scripts run, and
// waiting for the page's status elements.
export { launch, launchProfile, BASE_URL } from '../e2e/browser.mjs';

/**
 * Installs, in every page of `target` (a page or a browser context) before
 * its scripts run: a PerformanceObserver collecting the UI thread's long
 * tasks, and a MutationObserver noting when each status element
 * (`#model-status`, `#source-status`, `#plan-status`) first reached each
 * `data-state`, and when each selector of `firsts` (name → CSS selector)
 * first matched, in `performance.now()` milliseconds since navigation start
 * (the moment the element is in the DOM; it is painted in the next frame).
 * It also logs the Worker's messages (`messages`: type, when the page
 * received it, and when the page had handled it: a task later, after the
 * page's handler and the rendering it scheduled as microtasks) and holds the
 * probe `timed` arms. Read them with `collected(page)`.
 */
export async function instrument(target, { firsts = {} } = {}) {
  await target.addInitScript((firsts) => {
    const bench = (globalThis.__bench = { longTasks: [], marks: {}, messages: [], probe: null });
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) bench.longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
    const note = () => {
      for (const id of ['model-status', 'source-status', 'plan-status']) {
        const state = document.getElementById(id)?.dataset.state;
        const key = `${id}:${state}`;
        if (state && !(key in bench.marks)) bench.marks[key] = performance.now();
      }
      for (const [name, selector] of Object.entries(firsts)) {
        if (!(name in bench.marks) && document.querySelector(selector)) bench.marks[name] = performance.now();
      }
      bench.probe?.check();
    };
    new MutationObserver(note).observe(document, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['data-state', 'data-id'],
    });
    // The page's Worker, its messages logged. Our listener is added before the
    // page sets `onmessage`, so it runs first; the timeout runs after the
    // page's handler and the microtasks (rendering) it queued.
    const PageWorker = globalThis.Worker;
    globalThis.Worker = class extends PageWorker {
      constructor(...args) {
        super(...args);
        this.addEventListener('message', (ev) => {
          // The Worker's messages are externally tagged: `{ "<kind>": { … } }`.
          const kind = ev.data && typeof ev.data === 'object' ? Object.keys(ev.data)[0] ?? null : null;
          const message = { type: kind, at: performance.now(), handledAt: null };
          bench.messages.push(message);
          setTimeout(() => {
            message.handledAt = performance.now();
            bench.probe?.check();
          }, 0);
        });
      }
    };
    // One timed action at a time: see `timed`.
    bench.begin = () => {
      if (bench.probe && bench.probe.t0 === null) bench.probe.t0 = performance.now();
    };
    bench.arm = ({ startEvent, startSelector, until, timeout = 60_000 }) => {
      const probe = { t0: null, check: () => {} };
      const onStart = (ev) => {
        if (!startSelector || ev.target?.matches?.(startSelector)) bench.begin();
      };
      if (startEvent) addEventListener(startEvent, onStart, { capture: true });
      probe.done = new Promise((resolve) => {
        const finish = (result) => {
          if (startEvent) removeEventListener(startEvent, onStart, { capture: true });
          clearTimeout(timer);
          bench.probe = null;
          // The next frame's paint is over when a task queued from its animation frame runs.
          requestAnimationFrame(() =>
            setTimeout(() => {
              const since = (t) => (t === null || probe.t0 === null ? null : t - probe.t0);
              const messages = bench.messages
                .filter((m) => probe.t0 !== null && m.at >= probe.t0)
                .map((m) => ({ type: m.type, ms: since(m.at), handledMs: since(m.handledAt) }));
              resolve({ ...result, paintedMs: result.timedOut ? null : since(performance.now()), messages });
            }, 0),
          );
        };
        const timer = setTimeout(() => finish({ ms: null, timedOut: true }), timeout);
        probe.check = () => {
          if (probe.t0 === null) return;
          if (until.selector && document.querySelector(until.selector)) {
            finish({ ms: performance.now() - probe.t0 });
          } else if (until.message) {
            const m = bench.messages.find((m) => m.type === until.message && m.at >= probe.t0 && m.handledAt !== null);
            if (m) finish({ ms: m.handledAt - probe.t0, receivedMs: m.at - probe.t0 });
          }
        };
      });
      bench.probe = probe;
      bench.done = probe.done;
    };
  }, firsts);
}

/**
 * Times one user action in the page. Arms the page's probe, runs `act()`
 * (from here: a key press, a click, or an `evaluate` that calls
 * `__bench.begin()` itself), and waits for the outcome. The clock starts at
 * the page event `startEvent` (on a target matching `startSelector`, seen
 * first, in the capture phase) or when the page calls `__bench.begin()`; it
 * stops when `until.selector` first matches, or when the page has handled
 * the Worker's first message of type `until.message` (`receivedMs`: when it
 * arrived). Resolves with `{ ms, paintedMs, receivedMs?, timedOut?,
 * messages }` in milliseconds since the start (`paintedMs`: when the next
 * frame after that had been painted; `messages`: the Worker's since the start).
 */
export async function timed(page, { startEvent, startSelector, until, timeout }, act) {
  await page.evaluate((spec) => globalThis.__bench.arm(spec), { startEvent, startSelector, until, timeout });
  await act();
  return page.evaluate(() => globalThis.__bench.done);
}

/** Waits until the page has received a Worker message of type `type`. */
export async function messageSeen(page, type, timeout) {
  await page.waitForFunction((t) => globalThis.__bench.messages.some((m) => m.type === t), type, { timeout });
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
 * the element's text and `detail()`'s, if given); returns its locator. The
 * element may be hidden (on a tab not shown).
 */
export async function reached(page, id, state, timeout, detail = async () => '') {
  const status = page.locator(`#${id}[data-state="${state}"], #${id}[data-state="failed"]`);
  await status.waitFor({ state: 'attached', timeout });
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
