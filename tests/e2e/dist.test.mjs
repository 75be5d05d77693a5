// The hostable folder (`cargo xtask dist --base /sub/path/`), served under
// that path with its `_headers` applied (the Content-Security-Policy as a
// response header), as a static host serves it: the demo runs end to end,
// the policy blocks nothing the page needs, no script is inline, and no
// request leaves the page's path.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch, need } from './browser.mjs';
import { open, shot, finished } from './app.mjs';

// The suite's page is the dist folder under /sub/path/ (`cargo xtask test`).
const DIST = need('E2E_BASE_URL');

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test('the dist folder under /sub/path/ with its CSP header runs the demo; nothing is blocked, inline or outside its path', async () => {
  const context = await browser.newContext();
  const url = new URL(DIST);
  const requests = [];
  context.on('request', (r) => requests.push(r.url()));
  await context.addInitScript(() => {
    globalThis.__blocked = [];
    document.addEventListener('securitypolicyviolation', (e) => globalThis.__blocked.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const { page, problems } = await open(context, `${DIST}?demo`);
  try {
    // The demo's guided look: plan, run offline, Navigate on an explained unit.
    const done = await finished(page);
    assert.equal(await done.getAttribute('data-state'), 'finished');
    await page.locator('#insight[data-status="explained"]').waitFor({ timeout: 30_000 });
    await shot(page, 'dist-sub-path');

    // The policy: in a <meta> and, with frame-ancestors, as the host's header.
    const meta = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
    assert.match(meta, /script-src 'self' 'wasm-unsafe-eval'/);
    const response = await context.request.get(DIST);
    assert.match(response.headers()['content-security-policy'] ?? '', /frame-ancestors 'none'/);
    assert.equal(response.headers()['cross-origin-embedder-policy'], 'require-corp');
    // No inline script: Trunk's start-up script is a file of its own.
    assert.equal(await page.locator('script:not([src])').count(), 0);
    assert.deepEqual(await page.evaluate(() => globalThis.__blocked), [], 'nothing was blocked by the policy');

    // Every request stayed on the page's origin and under its path.
    const strays = requests.filter((r) => {
      const u = new URL(r);
      return u.protocol !== 'data:' && u.protocol !== 'blob:' && (u.origin !== url.origin || !u.pathname.startsWith(url.pathname));
    });
    assert.deepEqual(strays, []);
    assert.ok(requests.some((r) => r.endsWith('/sub/path/worker_bg.wasm')), 'the Worker came from the sub-path');
    assert.ok(requests.some((r) => r.includes('/sub/path/fixtures/demo/model.jsonl')), 'the demo came from the sub-path');

    // Large files have their precompressed twins beside them.
    for (const twin of ['worker_bg.wasm.br', 'worker_bg.wasm.gz', 'index.html.br']) {
      const r = await context.request.get(`${DIST}${twin}`);
      assert.equal(r.status(), 200, twin);
    }
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test("the page's wasm carries nothing of the engine; the Worker's does; both are optimised and pass integrity", async () => {
  const dir = need('E2E_DIST_DIR');
  const [page] = readdirSync(dir).filter((f) => /^web-.*_bg\.wasm$/.test(f));
  assert.ok(page, `the page's module in ${dir}`);
  const text = (f) => readFileSync(join(dir, f)).toString('latin1');
  // A function's panic message names its source file: the page's may name
  // only the page's own files; the Worker's name the engine's crates.
  const crates = (t) => [...new Set(t.match(/(crates\/[a-z]+|web\/worker)\/src\/[a-z_/]+\.rs/g) ?? [])].map((p) => p.split('/src/')[0]);
  const pageText = text(page);
  const workerText = text('worker_bg.wasm');
  assert.deepEqual([...new Set(crates(pageText))], [], 'engine code in the page');
  assert.match(pageText, /web\/src\/app\//, 'the page names its own files (the check can see a path)');
  for (const engine of ['crates/store', 'crates/insights', 'crates/analyzer', 'web/worker']) {
    assert.ok(crates(workerText).includes(engine), `${engine} in the Worker`);
  }
  assert.ok(!/sqlite3_/i.test(pageText) && /sqlite3_/i.test(workerText), 'SQLite only in the Worker');
  // wasm-opt --strip-debug: no name section is left.
  for (const t of [pageText, workerText]) assert.ok(!t.includes('\u0004name'), 'no name section');
  // Both modules load under Subresource Integrity (a stale digest would fail the page).
  const html = readFileSync(join(dir, 'index.html'), 'utf8');
  assert.match(html, new RegExp(`href="/sub/path/${page}"[^>]*integrity="sha384-`));
});
