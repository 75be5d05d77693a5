// `codegraph-insights domain --format md`: every Mermaid diagram it writes
// parses and renders with the real Mermaid (the npm package, loaded into a
// blank page: no network), and markup that an answer carries in names and
// definitions stays text — in the Markdown (backslash-escaped) and in the
// rendered SVG (no element made from it, the characters shown as they are).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, need } from './browser.mjs';
import { demoSidecar } from './app.mjs';

const CLI = need('E2E_CLI');
const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
const MERMAID = join(HERE, 'node_modules', 'mermaid', 'dist', 'mermaid.min.js');
const SCRIPT = '<script>x</script>';
const IMG = '<img src=x onerror="window.__pwned=1">';
/** A Mermaid directive and comment in a state's name: text, not configuration. */
const LATE = 'LATE %%{init: {"theme":"dark"}}%% 100%';

/** The block fields each edited record gets (merged over the demo's block). */
const EDITS = {
  'java:com.pedalpoint.rental': {
    boundedContextHint: { name: 'Rentals', rationale: `owns the ${SCRIPT} lifecycle` },
    ubiquitousLanguage: [
      { term: 'Rental', definition: 'a bike hired by a "customer"' },
      { term: 'Tier `level`', definition: `a [member] level, see ${IMG}` },
    ],
  },
  'java:com.pedalpoint.billing': {
    boundedContextHint: { name: 'Rentals', rationale: 'billing is part of renting' },
    ubiquitousLanguage: [{ term: 'Invoice', definition: 'what a customer pays & owes' }],
  },
  'java:com.pedalpoint.fleet': {
    boundedContextHint: { name: `Fleet [ops] "yard" ${SCRIPT}`, rationale: 'bikes and stations' },
    ubiquitousLanguage: [{ term: 'rental', definition: 'a bike out of its `station`' }],
    sharedKernelHint: 'station ids are shared with rentals',
  },
  'java:com.pedalpoint.rental/Rental': {
    name: `Rental ${SCRIPT}`, concept: 'aggregate', aggregateRoot: true,
    fields: [
      { name: 'customer', type: 'Customer', kind: 'entityReference' },
      { name: 'status', type: 'Status', kind: 'enum' },
    ],
    relatesTo: [{ name: 'Bike', concept: 'entity' }, { name: 'Dock [a] "b" `c` #d;', concept: 'valueType' }],
    stateMachine: {
      states: ['OPEN', 'FINISHED', `CANCELLED ${SCRIPT}`, 'PAUSED "for now"', '[*] end', 'state', 'note', LATE],
      transitions: [
        { from: 'OPEN', to: 'FINISHED', operation: 'finish' },
        { from: 'OPEN', to: `CANCELLED ${SCRIPT}`, operation: 'cancel("now") --> [x]; y' },
        { from: 'OPEN', to: 'PAUSED "for now"', operation: 'pause : #1 `now`' },
        { from: 'PAUSED "for now"', to: '[*] end', operation: ': -->' },
        { from: 'state', to: 'note', operation: 'end' },
        { from: 'OPEN', to: LATE, operation: '%%{init: {"theme":"dark"}}%% overdue' },
      ],
    },
  },
  'java:com.pedalpoint.rental/Customer': {
    name: 'Customer "rider"', concept: 'entity', containedIn: 'Rental',
    fields: [{ name: 'tier', type: 'Tier', kind: 'valueType' }],
  },
  'java:com.pedalpoint.rental/Customer.Tier': { name: 'Tier `level`', concept: 'valueType' },
  'java:com.pedalpoint.rental/RentalService': { name: 'Rental desk [front]', concept: 'applicationService' },
  'java:com.pedalpoint.billing/Invoice': { name: 'Invoice & co', concept: 'aggregate', aggregateRoot: true },
  'java:com.pedalpoint.billing/Invoice.Line': {
    name: `Line ${IMG}`, concept: 'entity', containedIn: 'Invoice & co',
    fields: [{ name: 'amount {x}', type: 'Money', kind: 'valueType' }],
  },
  'java:com.pedalpoint.fleet/Bike': { name: `Bike ${IMG} ${SCRIPT}`, concept: 'entity' },
  'java:com.pedalpoint.fleet/Station': { name: 'Station', concept: 'entity' },
  'java:com.pedalpoint.common/Money': { name: 'Money', concept: 'valueType' },
  'java:com.pedalpoint.rental/RentalService.finish(java.lang.String,java.lang.String,long)': {
    handlesCommand: 'FinishRental', emits: [{ name: 'RentalFinished', kind: 'internal' }], domainTerms: ['Rental'],
  },
  'java:com.pedalpoint.fleet/Fleet.reserveAt(java.lang.String,com.pedalpoint.fleet.BikeType)': {
    handlesCommand: `Reserve ${SCRIPT}`,
  },
};

/** The demo explained by the CLI's offline demo, its side-car edited by EDITS and its store removed. */
function hostileDemo() {
  const seen = new Set();
  const { dir, model } = demoSidecar(CLI, (block, id) => {
    const patch = EDITS[id];
    if (!patch) return;
    seen.add(id);
    for (const [k, v] of Object.entries(patch)) {
      assert.ok(k in block, `${id}: the block has ${k}`);
      block[k] = v;
    }
  });
  for (const id of Object.keys(EDITS)) assert.ok(seen.has(id), `the demo explains ${id}`);
  return { dir, model };
}

/** Every ```mermaid block of a Markdown text. */
function diagrams(markdown) {
  return [...markdown.matchAll(/^```mermaid\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test('every diagram of domain --format md parses and renders in Mermaid, and markup stays text', async () => {
  const { dir, model } = hostileDemo();
  const out = join(dir, 'md');
  execFileSync(CLI, ['domain', model, '--format', 'md', '--out-dir', out], { stdio: 'pipe' });
  const files = readdirSync(out).filter((n) => n.endsWith('.md')).sort();
  assert.ok(files.includes('index.md') && files.includes('rentals.md'), files.join(', '));
  const all = [];
  for (const name of files) {
    const text = readFileSync(join(out, name), 'utf8');
    // Markdown: no raw tag; the markup is backslash-escaped.
    assert.doesNotMatch(text, /(^|[^\\])<(script|img)/, `${name} holds raw markup`);
    for (const [i, d] of diagrams(text).entries()) all.push({ where: `${name} diagram ${i + 1}`, text: d });
  }
  // The golden files of the CLI's own test (crates/cli/tests/domain.rs) are Mermaid too.
  const golden = join(ROOT, 'crates/cli/tests/golden/domain');
  for (const name of readdirSync(golden).filter((n) => n.endsWith('.md')).sort()) {
    const text = readFileSync(join(golden, name), 'utf8');
    for (const [i, d] of diagrams(text).entries()) all.push({ where: `golden ${name} diagram ${i + 1}`, text: d });
  }
  assert.ok(all.some((d) => d.where.startsWith('golden ')), 'the golden files hold diagrams');
  const rentals = readFileSync(join(out, 'rentals.md'), 'utf8');
  assert.ok(rentals.includes('owns the \\<script\\>x\\</script\\> lifecycle'), rentals);
  const kinds = new Set(all.map((d) => d.text.split('\n')[0]));
  assert.deepEqual([...kinds].sort(), ['classDiagram', 'flowchart LR', 'stateDiagram-v2']);

  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('request', (req) => {
    if (!req.url().startsWith('data:') && req.url() !== 'about:blank') problems.push(`request: ${req.url()}`);
  });
  try {
    await page.goto('about:blank');
    await page.addScriptTag({ path: MERMAID });
    await page.evaluate(() => window.mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' }));

    // Every diagram parses.
    for (const d of all) {
      const parsed = await page.evaluate(async (text) => {
        try {
          return { ok: await window.mermaid.parse(text) };
        } catch (e) {
          return { error: String(e?.message ?? e) };
        }
      }, d.text);
      assert.ok(parsed.ok, `${d.where} does not parse: ${parsed.error}\n${d.text}`);
    }

    // Every diagram renders; nothing is made from the markup, which is shown as text.
    const shown = [];
    for (const [i, d] of all.entries()) {
      const result = await page.evaluate(async ({ text, i }) => {
        try {
          const { svg } = await window.mermaid.render(`d${i}`, text);
          const holder = document.createElement('div');
          holder.id = `holder${i}`;
          holder.innerHTML = svg;
          document.body.append(holder);
          return { text: holder.textContent };
        } catch (e) {
          return { error: String(e?.message ?? e) };
        }
      }, { text: d.text, i });
      assert.ok(result.text !== undefined, `${d.where} does not render: ${result.error}\n${d.text}`);
      shown.push(result.text);
    }
    const found = await page.evaluate(() => ({
      scripts: document.querySelectorAll('script').length,
      img: document.querySelectorAll('img').length,
      pwned: window.__pwned ?? null,
    }));
    // The one script is the Mermaid bundle addScriptTag put in the head.
    assert.deepEqual(found, { scripts: 1, img: 0, pwned: null });
    assert.equal(await page.evaluate(() => document.querySelectorAll('body script').length), 0);
    const text = shown.join('\n');
    for (const want of [SCRIPT, 'Customer "rider"', 'Tier `level`', 'Fleet [ops] "yard"', 'Invoice & co', 'Line <img src=x', 'Dock [a] "b" `c` #d;', 'PAUSED "for now"', LATE]) {
      assert.ok(text.includes(want), `the rendered diagrams show ${JSON.stringify(want)} as text:\n${text}`);
    }
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});
