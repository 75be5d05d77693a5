// `cargo xtask bench read` (browser part): opens the page with ?model=URL in
// headless Chromium, waits for the worker to read it, and prints one JSON line
// with the worker's own figures (wall time, wasm memory) and the longest task
// seen on the UI thread while it read.
import { launch, BASE_URL } from '../e2e/browser.mjs';

const modelPath = process.argv[2];
const browser = await launch();
try {
  const page = await browser.newPage();
  await page.addInitScript(() => {
    globalThis.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) globalThis.__longTasks.push(e.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
  await page.goto(new URL(`?model=${encodeURIComponent(modelPath)}`, BASE_URL).href);
  const status = page.locator('#model-status[data-state="loaded"], #model-status[data-state="failed"]');
  await status.waitFor({ timeout: 600_000 });
  if ((await status.getAttribute('data-state')) === 'failed') {
    throw new Error(await status.innerText());
  }
  const longTasks = await page.evaluate(() => globalThis.__longTasks);
  console.log(
    JSON.stringify({
      millis: Number(await status.getAttribute('data-millis')),
      wasmMemory: Number(await status.getAttribute('data-wasm-memory')),
      entities: Number(await status.getAttribute('data-entities')),
      edges: Number(await status.getAttribute('data-edges')),
      longestUiTaskMs: Math.max(0, ...longTasks),
    }),
  );
} finally {
  await browser.close();
}
