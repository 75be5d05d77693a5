// The Graph tab on the demo: boxes that do not overlap, an arrowhead on
// every edge, labels that fit their boxes (the full id as the title), zoom,
// fit and pan changing the view box, the externals toggle, node clicks that
// still select, and no horizontal overflow on a phone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch } from './browser.mjs';
import { open, shot, planned, DEMO_BY_HAND } from './app.mjs';

const BIKE = 'java:com.pedalpoint.fleet/Bike';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** What the drawing shows, read from the DOM. */
async function drawing(page) {
  return page.evaluate(() => {
    const svg = document.querySelector('#graph-svg');
    const nodes = [...svg.querySelectorAll('.gnode')].map((g) => {
      const rect = g.querySelector('rect');
      const r = rect.getBoundingClientRect();
      const text = g.querySelector('text');
      return {
        node: g.dataset.node,
        name: g.getAttribute('aria-label'),
        title: g.querySelector('title')?.textContent,
        label: text.textContent,
        stub: g.classList.contains('stub'),
        box: { x: r.x, y: r.y, w: r.width, h: r.height },
        textWidth: text.getComputedTextLength(),
        boxWidth: Number(rect.getAttribute('width')),
      };
    });
    const edges = [...svg.querySelectorAll('path.edge')].map((p) => ({ marker: p.getAttribute('marker-end'), d: p.getAttribute('d') }));
    const markers = [...svg.querySelectorAll('marker')].map((m) => m.id);
    const legend = [...document.querySelectorAll('#graph-legend li')].map((li) => li.dataset.legend);
    return { nodes, edges, markers, legend, viewBox: svg.getAttribute('viewBox') };
  });
}

function assertReadable(d) {
  assert.ok(d.nodes.length > 1, 'a graph with nodes');
  for (let i = 0; i < d.nodes.length; i++) {
    const a = d.nodes[i];
    assert.equal(a.title, a.name, 'the full id is the title and the accessible name');
    assert.ok(a.textWidth <= a.boxWidth, `${a.label}: text ${a.textWidth} wider than its box ${a.boxWidth}`);
    for (const b of d.nodes.slice(i + 1)) {
      const apart = a.box.x + a.box.w <= b.box.x + 0.01 || b.box.x + b.box.w <= a.box.x + 0.01
        || a.box.y + a.box.h <= b.box.y + 0.01 || b.box.y + b.box.h <= a.box.y + 0.01;
      assert.ok(apart, `${a.label} and ${b.label} overlap: ${JSON.stringify([a.box, b.box])}`);
    }
  }
  assert.ok(d.edges.length > 0, 'edges');
  for (const e of d.edges) {
    const m = /^url\(#(.+)\)$/.exec(e.marker ?? '');
    assert.ok(m && d.markers.includes(m[1]), `an arrowhead on ${e.d}: ${e.marker}`);
  }
  // The legend explains the centre and each edge hue drawn.
  assert.ok(d.legend.length >= 2, `legend: ${d.legend}`);
}

const width = (vb) => Number(vb.split(' ')[2]);

test('the demo graph reads: boxes apart, arrowheads, labels that fit, zoom and pan, externals on request, no overflow at 390 px', async () => {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const { page, problems } = await open(context, DEMO_BY_HAND);
  try {
    await planned(page);
    await page.evaluate((id) => { location.hash = `#id=${encodeURIComponent(id)}`; }, BIKE);
    await page.locator(`#selection[data-id="${BIKE}"]`).waitFor({ timeout: 30_000 });

    // The module overview first (the tab's default), externals hidden and counted.
    await page.click('#tab-graph');
    await page.locator('#graph-svg .gnode').first().waitFor({ timeout: 30_000 });
    await page.locator('#graph-externals-hidden').waitFor();
    let d = await drawing(page);
    assertReadable(d);
    assert.ok(d.nodes.every((n) => !n.stub), 'no external drawn');
    const corpusModules = d.nodes.length;
    // A package reads as its simple name, its full id on hover.
    assert.ok(d.nodes.some((n) => n.label === 'fleet' && n.name === 'java:com.pedalpoint.fleet'), JSON.stringify(d.nodes.map((n) => n.label)));

    // Show externals: the stub modules join.
    await page.check('#graph-externals');
    await page.locator('#graph-svg .gnode.stub').first().waitFor({ timeout: 30_000 });
    d = await drawing(page);
    assertReadable(d);
    assert.ok(d.nodes.length > corpusModules);
    assert.ok(d.legend.includes('stub'), 'the legend explains the dashed outline');

    // Bike's neighbourhood (externals still shown).
    await page.click('#graph-selection');
    await page.locator(`#graph-svg .gnode.center[aria-label="${BIKE}"]`).waitFor({ timeout: 30_000 });
    d = await drawing(page);
    assertReadable(d);
    assert.ok(d.nodes.some((n) => n.name === BIKE && n.label === 'Bike'));
    for (const kind of ['center', 'in', 'out']) assert.ok(d.legend.includes(kind), `legend ${kind}: ${d.legend}`);
    await shot(page, 'graph-1400');

    // Zoom in, zoom out, fit: the view box follows.
    const fit = d.viewBox;
    await page.click('#graph-zoom-in');
    const zoomed = (await drawing(page)).viewBox;
    assert.ok(width(zoomed) < width(fit), `${zoomed} vs ${fit}`);
    await page.click('#graph-zoom-out');
    await page.click('#graph-zoom-out');
    assert.ok(width((await drawing(page)).viewBox) > width(fit));
    await page.click('#graph-fit');
    assert.equal((await drawing(page)).viewBox, fit);
    // The wheel zooms, a drag pans, the keyboard zooms.
    const box = await page.locator('#graph-svg').boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, -300);
    await page.waitForFunction((f) => document.querySelector('#graph-svg').getAttribute('viewBox') !== f, fit);
    const wheeled = (await drawing(page)).viewBox;
    assert.ok(width(wheeled) < width(fit), `${wheeled} vs ${fit}`);
    await page.mouse.move(box.x + 10, box.y + 10);
    await page.mouse.down();
    await page.mouse.move(box.x + 60, box.y + 40, { steps: 5 });
    await page.mouse.up();
    const panned = (await drawing(page)).viewBox;
    assert.notEqual(panned.split(' ')[0], wheeled.split(' ')[0], 'a drag pans');
    assert.equal(width(panned), width(wheeled), 'a drag does not zoom');
    await page.click('#graph-fit');
    await page.focus('#graph-svg');
    await page.keyboard.press('+');
    assert.ok(width((await drawing(page)).viewBox) < width(fit), 'the + key zooms');
    await page.keyboard.press('0');
    assert.equal((await drawing(page)).viewBox, fit);

    // A click on a node still selects it.
    const other = d.nodes.find((n) => n.name !== BIKE && !n.stub);
    await page.click(`#graph-svg .gnode[data-node="${other.node}"]`);
    await page.locator(`#selection[data-id="${other.name}"]`).waitFor({ timeout: 30_000 });

    // On a phone: the graph fits the width, the page does not scroll sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.click('#tab-graph');
    await page.click('#graph-selection');
    await page.locator(`#graph-svg .gnode.center[aria-label="${other.name}"]`).waitFor({ timeout: 30_000 });
    d = await drawing(page);
    assertReadable(d);
    // Too wide to fit legibly: it opens at a readable scale, Fit shows it all.
    const opened = d.viewBox;
    const svgWidth = (await page.locator('#graph-svg').boundingBox()).width;
    assert.ok(svgWidth / width(opened) >= 0.74, `opened at ${opened} in ${svgWidth} px`);
    await shot(page, 'graph-390');
    await page.click('#graph-fit');
    assert.ok(width((await drawing(page)).viewBox) > width(opened));
    await page.click('#graph-zoom-in');
    // Nothing of the Graph tab reaches past the right edge. (The tab strip
    // above it is another part's: at 390 px it is wider than the screen, so
    // it is left out of this check and reported.)
    const overflow = await page.evaluate(() => {
      const past = [];
      for (const el of document.querySelectorAll('body *')) {
        if (el.closest('.tabs') || el.closest('#graph-svg > g')) continue;
        const r = el.getBoundingClientRect();
        if (r.width > 0 && r.right > document.documentElement.clientWidth + 0.5) past.push(`${el.tagName.toLowerCase()}#${el.id}.${el.className?.baseVal ?? el.className}`);
      }
      const panel = document.querySelector('#panel-graph');
      return { past, panel: [panel.scrollWidth, panel.clientWidth], svg: document.querySelector('#graph-svg').getBoundingClientRect().right };
    });
    assert.deepEqual(overflow.past, [], 'elements past the right edge');
    assert.ok(overflow.panel[0] <= overflow.panel[1] && overflow.svg <= 390, JSON.stringify(overflow));
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
