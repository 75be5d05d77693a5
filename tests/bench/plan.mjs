// `cargo xtask bench plan` (browser part): opens the page with
// ?model=URL&plan=1 in headless Chromium, waits for the worker to read the
// model and then plan it (facts, units, walk, packs, fingerprints, prompts),
// and prints one JSON line with the worker's own figures for both.
// Usage: node tests/bench/plan.mjs MODEL_PATH [TIMEOUT_SECONDS]
import { launch, BASE_URL, reached, numbers } from './common.mjs';

const modelPath = process.argv[2];
const timeout = Number(process.argv[3] ?? 1800) * 1000;
const browser = await launch();
try {
  const page = await browser.newPage();
  const consoleErrors = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') consoleErrors.push(msg.text());
  });
  await page.goto(new URL(`?model=${encodeURIComponent(modelPath)}&plan=1`, BASE_URL).href);
  const loaded = await reached(page, 'model-status', 'loaded', timeout);
  const planned = await reached(page, 'plan-status', 'planned', timeout, async () => {
    const memory = await page.evaluate(() => performance.memory?.usedJSHeapSize ?? null);
    return `console: ${JSON.stringify(consoleErrors)}; JS heap ${memory}`;
  });
  const read = await numbers(loaded, ['millis', 'wasmMemory']);
  console.log(
    JSON.stringify({
      readMillis: read.millis,
      readWasmMemory: read.wasmMemory,
      ...(await numbers(planned, ['millis', 'wasmMemory', 'units', 'calls'])),
      text: await planned.innerText(),
    }),
  );
} finally {
  await browser.close();
}
