// `cargo xtask bench explore --browser` (browser part), one run per
// invocation; prints one JSON line. Times are `performance.now()` milliseconds
// in the page (see common.mjs).
//
//   node tests/bench/explore.mjs MODEL_PATH TIMEOUT_SECONDS QUESTION...
//
// A fresh browser opens ?model=MODEL_PATH and the Explore tab, waits until the
// model is loaded and the Worker is idle (the store open, and the navigator
// built if the page builds it then), then asks each QUESTION in turn
// (#explore-question, #explore-ask), and the first once more at the end: from
// the click until the page has handled the Worker's answer (Explored) and
// shown it, with the Worker's own figures (#explore-answer[data-millis], the
// index build it reports on the first answer) and the map's size. The first
// answer builds the name index.
import { launch, BASE_URL, instrument, reached, timed, messageSeen } from './common.mjs';

const [modelPath, timeoutSeconds, ...questions] = process.argv.slice(2);
if (!modelPath || !questions.length) throw new Error('usage: explore.mjs MODEL_PATH TIMEOUT_SECONDS QUESTION...');
const timeout = Number(timeoutSeconds) * 1000;

const browser = await launch();
try {
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  await instrument(page);
  await page.goto(new URL(`?model=${encodeURIComponent(modelPath)}`, BASE_URL).href);
  await page.click('#tab-explore');
  await reached(page, 'model-status', 'loaded', timeout, async () => `problems: ${JSON.stringify(problems)}`);
  await messageSeen(page, 'store_opened', 60_000).catch(() => problems.push('no store_opened within 60 s'));
  // A page that builds the navigator after the read does it before answering: wait for it (a page
  // that builds it only for the navigator's tabs sends no NavReady here).
  const navigatorBuilt = await messageSeen(page, 'nav_ready', 20_000).then(() => true, () => false);

  const answers = [];
  const answer = page.locator('#explore-answer');
  for (const question of [...questions, questions[0]]) {
    await page.fill('#explore-question', question);
    const t = await timed(page, { startEvent: 'click', startSelector: '#explore-ask', until: { message: 'explored' }, timeout }, () =>
      page.click('#explore-ask'),
    );
    const millis = await answer.getAttribute('data-millis');
    const hint = await answer.locator('p.hint').first().textContent();
    answers.push({
      question,
      ms: t.ms,
      paintedMs: t.paintedMs,
      receivedMs: t.receivedMs ?? null,
      timedOut: !!t.timedOut,
      // The answer shown is this question's: the map repeats the question (a bounded echo).
      shown: (await page.locator('#explore-map').textContent()).includes(question.slice(0, 40)),
      workerMillis: Number(millis),
      indexMillis: Number(/index was built first: (\d+) ms/.exec(hint)?.[1] ?? 0),
      chars: Number(await answer.getAttribute('data-chars')),
      symbols: Number(await answer.getAttribute('data-symbols')),
      mode: await answer.getAttribute('data-mode'),
    });
  }
  console.log(JSON.stringify({ navigatorBuilt, answers, problems }));
} finally {
  await browser.close();
}
