// `cargo xtask bench plan` (browser part): opens the page with
// ?model=URL&plan=1 in headless Chromium, waits for the worker to read the
// model and then plan it (facts, units, walk, packs, fingerprints, prompts),
// and prints one JSON line with the worker's own figures for both.
// Usage: node tests/bench/plan.mjs MODEL_PATH [TIMEOUT_SECONDS]
import { launch, BASE_URL } from '../e2e/browser.mjs';

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
  const loaded = page.locator('#model-status[data-state="loaded"], #model-status[data-state="failed"]');
  await loaded.waitFor({ timeout });
  if ((await loaded.getAttribute('data-state')) === 'failed') {
    throw new Error(await loaded.innerText());
  }
  const planned = page.locator('#plan-status[data-state="planned"], #plan-status[data-state="failed"]');
  await planned.waitFor({ timeout });
  if ((await planned.getAttribute('data-state')) === 'failed') {
    const memory = await page.evaluate(() => performance.memory?.usedJSHeapSize ?? null);
    throw new Error(
      `planning failed: ${(await planned.innerText()).replaceAll('\n', ' ')}; console: ${JSON.stringify(consoleErrors)}; JS heap ${memory}`,
    );
  }
  console.log(
    JSON.stringify({
      readMillis: Number(await loaded.getAttribute('data-millis')),
      readWasmMemory: Number(await loaded.getAttribute('data-wasm-memory')),
      millis: Number(await planned.getAttribute('data-millis')),
      wasmMemory: Number(await planned.getAttribute('data-wasm-memory')),
      units: Number(await planned.getAttribute('data-units')),
      calls: Number(await planned.getAttribute('data-calls')),
      text: await planned.innerText(),
    }),
  );
} finally {
  await browser.close();
}
