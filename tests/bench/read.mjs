// `cargo xtask bench read` (browser part): opens the page with ?model=URL in
// headless Chromium, waits for the worker to read it, and prints one JSON line
// with the worker's own figures (wall time, wasm memory) and the longest task
// seen on the UI thread while it read.
import { launch, BASE_URL, instrument, collected, reached, numbers } from './common.mjs';

const modelPath = process.argv[2];
const browser = await launch();
try {
  const page = await browser.newPage();
  await instrument(page);
  await page.goto(new URL(`?model=${encodeURIComponent(modelPath)}`, BASE_URL).href);
  const status = await reached(page, 'model-status', 'loaded', 600_000);
  const { longTasks } = await collected(page);
  console.log(
    JSON.stringify({
      ...(await numbers(status, ['millis', 'wasmMemory', 'entities', 'edges'])),
      longestUiTaskMs: Math.max(0, ...longTasks.map((t) => t.duration)),
    }),
  );
} finally {
  await browser.close();
}
