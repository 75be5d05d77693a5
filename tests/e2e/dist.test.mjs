// The hostable folder (`cargo xtask dist --base /sub/path/`), served under
// that path with its `_headers` applied (the Content-Security-Policy as a
// response header), as a static host serves it: the demo runs end to end,
// the policy blocks nothing the page needs, no script is inline, and no
// request leaves the page's path.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, need } from './browser.mjs';
import { open, shot, finished } from './app.mjs';

const DIST = need('E2E_DIST_URL');

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
