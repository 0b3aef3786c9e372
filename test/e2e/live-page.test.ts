import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import type { Page } from 'puppeteer-core';
import { CLI, ROOT, Sandbox } from '../helpers/cli.js';
import { findChromium, freePort, launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { countColour, decodePng, type Image } from '../helpers/png.js';

const chromium = findChromium();
// Each test carries the skip, not the suite: node:test counts a skipped suite as no skipped test at all.
const needsChromium = {
  skip: chromium
    ? false
    : 'no chromium: the live page is tested in headless Chromium (apt-get install -y chromium)',
};
const box = new Sandbox();
let browser: TestBrowser | undefined;
before(async () => {
  if (chromium) browser = await launchBrowser(chromium);
});
after(async () => {
  await browser?.close();
  box.remove();
});

/** What the functions run in the page use of it (the tests are type-checked without the DOM library). */
interface El {
  dataset: Record<string, string | undefined>;
  value: string;
  textContent: string | null;
  click(): void;
}
declare const document: {
  querySelectorAll(selector: string): ArrayLike<El>;
  querySelector(selector: string): El;
};
declare function requestAnimationFrame(callback: () => void): number;

/** Colours of the page's stylesheet: the header, the badge counting agents in a state box, an ask's card. */
const HEADER = '#1d3557';
const BADGE = '#d53f8c';
const ASK_CARD = '#fffaf0';

/** A bounded wait for a file the test creates: a script state that would otherwise hang gives up after a minute. */
const waitFor = (file: string) =>
  `for n in $(seq 600); do [ -f '${file}' ] && break; sleep 0.1; done\n`;

interface Watched {
  run: ResultPromise<{ stdin: 'pipe'; reject: false; all: true }>;
  page: Page;
}

/**
 * Starts `raymond ARGS --inspect=PORT --inspect-wait --on-ask=prompt` with a
 * stdin that stays open (a pipe, as a terminal would be) and opens its live
 * page, whose connection starts the run.
 */
async function watch(args: string[]): Promise<Watched> {
  const port = await freePort();
  const run = execa(
    process.execPath,
    [CLI, ...args, `--inspect=${port}`, '--inspect-wait', '--on-ask=prompt', '--no-debug'],
    { cwd: box.dir, stdin: 'pipe', reject: false, all: true, timeout: 180_000 },
  );
  let printed = '';
  await new Promise<void>((resolve, reject) => {
    run.stderr.on('data', (c: Buffer) => {
      printed += String(c);
      if (printed.includes(`open http://localhost:${port}/live `)) resolve();
    });
    void run.then(() =>
      reject(new Error(`raymond ended before printing the live page's URL:\n${printed}`)),
    );
  });
  const page = await browser!.page();
  await page.goto(`http://localhost:${port}/live`);
  return { run, page };
}

/** Agents per marked state box of the diagram. */
function marked(page: Page): Promise<Record<string, number>> {
  return page.$$eval('#diagram .node[data-file]', (nodes) =>
    Object.fromEntries(
      (nodes as unknown as El[])
        .filter((n) => Number(n.dataset.agents) > 0)
        .map((n) => [n.dataset.file!, Number(n.dataset.agents)]),
    ),
  );
}

/** Saves a screenshot under the test's folder and decodes it. */
async function shot(page: Page, name: string): Promise<Image> {
  const file = join(box.dir, `${name}.png`);
  await page.screenshot({ path: file });
  return decodePng(readFileSync(file));
}

const text = (page: Page, selector: string) => page.$eval(selector, (e) => e.textContent ?? '');

async function answer(page: Page, prompt: RegExp, response: string): Promise<void> {
  await page.waitForFunction(
    (source: string) =>
      Array.from(document.querySelectorAll('.ask pre')).some((p) =>
        new RegExp(source).test(p.textContent ?? ''),
      ),
    {},
    prompt.source,
  );
  const cards = await page.$$('#asks .ask');
  assert.equal(cards.length, 1, 'one question is pending');
  await cards[0]!.$eval('textarea', (t, value) => ((t as unknown as El).value = value), response);
  await cards[0]!.$eval('button[type=submit]', (b) => (b as unknown as El).click());
}

describe('the live page of --inspect, through its HTTP routes', () => {
  it('answers an ask posted as ray does ({"response": ...}); the terminal stops asking it', async () => {
    const port = await freePort();
    const run = execa(
      process.execPath,
      [
        CLI,
        join(ROOT, 'workflows/examples/approval/states'),
        '--input',
        'by post',
        `--inspect=${port}`,
        '--on-ask=prompt',
        '--no-debug',
      ],
      { cwd: box.dir, stdin: 'pipe', reject: false, all: true, timeout: 60_000 },
    );
    const live = `http://localhost:${port}/live`;
    let asks: Array<{ id: string; prompt: string }> = [];
    for (let i = 0; i < 300 && asks.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      asks = await fetch(`${live}/snapshot`)
        .then((r) => r.json() as Promise<{ asks: typeof asks }>)
        .then((s) => s.asks)
        .catch(() => []);
    }
    assert.match(asks[0]!.prompt, /^Plan for "by post"/);
    const answered = await fetch(`${live}/asks/${asks[0]!.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ response: 'approve' }),
    });
    assert.equal(answered.status, 200);
    const r = await run;
    assert.equal(r.exitCode, 0, r.all);
    assert.match(r.stdout, /^implemented: by post/);
    assert.ok(
      r.stderr.includes(`raymond: ${asks[0]!.id} was answered on the live page; no answer needed`),
      r.stderr,
    );
    assert.ok(
      r.stderr.includes(
        `open ${live} to watch the agent machines (Raymond's live view, works offline), or http://localhost:${port} for the Stately inspector (needs internet)`,
      ),
      r.stderr,
    );
  });
});

describe('the live page of --inspect for a resumed run', () => {
  it('draws the diagram of the workflow the state file names', async () => {
    const wf = box.write(
      {
        'START.sh': '#!/bin/sh\necho "<ask next=\\"DONE\\">go?</ask>"\n',
        'DONE.sh': '#!/bin/sh\necho "<result>done</result>"\n',
      },
      'resumed-diagram',
    );
    const first = await execa(
      process.execPath,
      [CLI, wf, '--on-ask=pause', '--workflow-id', 'live-resumed', '--no-debug'],
      { cwd: box.dir, reject: false, stdin: 'ignore' },
    );
    assert.equal(first.exitCode, 2, String(first.stderr));
    const port = await freePort();
    const run = execa(
      process.execPath,
      [CLI, '--resume', 'live-resumed', `--inspect=${port}`, '--on-ask=prompt', '--no-debug'],
      { cwd: box.dir, stdin: 'pipe', reject: false, all: true, timeout: 60_000 },
    );
    let svg = '';
    for (let i = 0; i < 300 && !svg.includes('DONE.sh'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      svg = await fetch(`http://localhost:${port}/live/diagram.svg`)
        .then((r) => (r.ok ? r.text() : ''))
        .catch(() => '');
    }
    run.stdin.end('yes\n');
    assert.ok(
      svg.startsWith('<svg') && svg.includes('START.sh') && svg.includes('DONE.sh'),
      svg.slice(0, 200),
    );
    const r = await run;
    assert.equal(r.exitCode, 0, r.all);
  });
});

describe('the live page of --inspect, offline, in headless Chromium', () => {
  it(
    'shows each denied tool call in the log, counts them, and draws a lock on the restricted state',
    needsChromium,
    async () => {
      const fake = join(box.dir, 'fake-denied');
      mkdirSync(fake, { recursive: true });
      const wf = box.write(
        { 'START.md': '---\ntools: [Read]\n---\nLook only <result>ok</result>' },
        'denied-page',
      );
      const port = await freePort();
      const run = execa(
        process.execPath,
        [
          CLI,
          wf,
          '--claude-bin',
          join(ROOT, 'test/fixtures/fake-claude/claude'),
          `--inspect=${port}`,
          '--inspect-wait',
          '--no-debug',
        ],
        {
          cwd: box.dir,
          stdin: 'pipe',
          reject: false,
          all: true,
          timeout: 120_000,
          env: {
            FAKE_CLAUDE_DIR: fake,
            FAKE_CLAUDE_MODE: 'denied',
            FAKE_CLAUDE_COST: '0.00012371',
          },
        },
      );
      let printed = '';
      await new Promise<void>((resolve, reject) => {
        run.stderr.on('data', (c: Buffer) => {
          printed += String(c);
          if (printed.includes(`open http://localhost:${port}/live `)) resolve();
        });
        void run.then(() => reject(new Error(printed)));
      });
      const page = await browser!.page();
      await page.goto(`http://localhost:${port}/live`);
      await page.waitForFunction(
        () => document.querySelector('#run-denials').textContent === '1 tool call denied',
      );
      const lines = await page.$$eval('#log li.denied', (li) =>
        (li as unknown as El[]).map((l) => l.textContent),
      );
      assert.deepEqual(lines, ['[main] denied: Bash(git push)']);
      assert.match(await text(page, '#diagram'), /\u{1F512} START\.md/u);
      // The cost by state, from the step.measured the feed sends as it is: a sub-cent cost to four figures.
      await page.waitForFunction(() => document.querySelector('#costs-body tr') !== null);
      const cells = await page.$$eval('#costs-body tr td', (td) =>
        (td as unknown as El[]).map((c) => c.textContent),
      );
      assert.deepEqual(cells.slice(0, 5), ['START.md', '1', '1', '$0.0001237', '100%']);
      assert.match(cells[5]!, /^\d+\.\ds$/);
      run.stdin.end();
      const r = await run;
      assert.equal(r.exitCode, 0, r.all);
      assert.match(r.all, /\[main\] denied: Bash\(git push\)/);
    },
  );

  it(
    'shows the approval example moving on the diagram, takes both answers, and sees the run complete',
    needsChromium,
    async () => {
      const { run, page } = await watch([
        join(ROOT, 'workflows/examples/approval/states'),
        '--input',
        'rename foo',
      ]);
      assert.equal(await text(page, '#heading'), 'Raymond live view (offline)');
      assert.match(await text(page, '#other-view'), /Stately inspector/);
      await page.waitForSelector('#diagram .node[data-file="1_START.sh"][data-agents="1"]');
      await page.waitForSelector('.ask pre');
      assert.match(
        await text(page, '.ask pre'),
        /^Plan for "rename foo" is in .*plan\.md: three steps/,
      );
      assert.deepEqual(await marked(page), { '1_START.sh': 1 });
      assert.equal(await text(page, '#agents .row[data-agent="main"] .machine'), 'asking');
      const asking = await shot(page, 'asking');
      assert.ok(countColour(asking, HEADER) > 10_000, 'the header is drawn');
      assert.ok(countColour(asking, BADGE) > 100, 'the state box with the agent has its badge');
      assert.ok(countColour(asking, ASK_CARD) > 5_000, 'the question is shown');

      // A change request: DECIDE.sh notes it and asks again, so the agent moves to another box.
      await answer(page, /^Plan for/, 'add tests');
      await page.waitForSelector('#diagram .node[data-file="DECIDE.sh"][data-agents="1"]');
      assert.deepEqual(await marked(page), { 'DECIDE.sh': 1 });
      const moved = await shot(page, 'moved');
      assert.ok(countColour(moved, BADGE) > 100);

      await answer(page, /^Noted in/, 'approve');
      await page.waitForSelector('body[data-status="completed"]');
      assert.deepEqual(await marked(page), {}, 'no agent is left on the diagram');
      assert.equal(await page.$$eval('#asks .ask', (cards) => cards.length), 0);
      const log = await text(page, '#log');
      for (const line of [
        '[main] 1_START.sh → 1_START.sh <ask>',
        '[main] DECIDE.sh → IMPLEMENT.sh <goto>',
        '[main] IMPLEMENT.sh → result <result>',
        'run completed',
      ])
        assert.ok(log.includes(line), `${line} in the log:\n${log}`);
      const done = await shot(page, 'completed');
      assert.ok(countColour(done, HEADER) > 10_000);
      assert.equal(countColour(done, BADGE), 0, 'no badge once every agent is done');

      const r = await run;
      assert.equal(r.exitCode, 0, r.all);
      assert.match(r.stdout, /^implemented: rename foo/);
      // The terminal's question is withdrawn once the page answered it.
      assert.match(
        r.stderr,
        /raymond: ask_main_\d+ was answered on the live page; no answer needed/,
      );
      assert.deepEqual(browser!.offsite, [], 'the page loaded nothing from the network');
    },
  );

  it(
    'follows forked workers from box to box, and the cancel button stops the run',
    needsChromium,
    async () => {
      const [gate1, gate2] = [join(box.dir, 'gate1'), join(box.dir, 'gate2')];
      const wf = box.write(
        {
          'START.sh':
            '#!/bin/sh\nfor i in 1 2 3; do echo "<fork next=\\"DONE.sh\\" item=\\"$i\\">WORK.sh</fork>"; done\n',
          'DONE.sh': '#!/bin/sh\necho "<result>forked</result>"\n',
          'WORK.sh': `#!/bin/sh\n${waitFor(gate1)}echo "<goto>HOLD.sh</goto>"\n`,
          'HOLD.sh': `#!/bin/sh\n${waitFor(gate2)}echo "<result>held</result>"\n`,
        },
        'forks',
      );
      const { run, page } = await watch([wf, '--max-parallel', '4']);
      await page.waitForSelector('#diagram .node[data-file="WORK.sh"][data-agents="3"]');
      // The parent may still be on DONE.sh for a moment: the workers are what this checks.
      assert.equal((await marked(page))['WORK.sh'], 3);
      assert.equal(await text(page, '#diagram .node[data-file="WORK.sh"] .live-badge text'), '3');
      await shot(page, 'forked');
      writeFileSync(gate1, '');
      await page.waitForSelector('#diagram .node[data-file="HOLD.sh"][data-agents="3"]');
      assert.equal((await marked(page))['HOLD.sh'], 3);
      assert.equal((await marked(page))['WORK.sh'], undefined);
      const held = await shot(page, 'held');
      assert.ok(countColour(held, BADGE) > 100);
      await page.click('#cancel');
      await page.waitForSelector('body[data-status="stopped"]');
      const r = await run;
      assert.equal(r.exitCode, 130, r.all);
      assert.match(
        r.stderr,
        /raymond: cancelled from the live page; stopping every step \(the state file keeps the run\)/,
      );
      assert.match(r.stderr, /resume with: raymond --resume forks-/);
      writeFileSync(gate2, '');
    },
  );

  it(
    "shows a parent waiting on its <join> as awaiting-child, then going on with its workers' results",
    needsChromium,
    async () => {
      const gate = join(box.dir, 'join-gate');
      const wf = box.write(
        {
          'START.sh':
            '#!/bin/sh\nfor i in 1 2; do echo "<fork item=\\"$i\\">WORK.sh</fork>"; done\necho "<join>COLLECT.sh</join>"\n',
          'WORK.sh': `#!/bin/sh\n${waitFor(gate)}echo "<result>item $item</result>"\n`,
          'COLLECT.sh': '#!/bin/sh\nprintf "<result>%s</result>" "$RAYMOND_INPUT"\n',
        },
        'joins',
      );
      const { run, page } = await watch([wf, '--max-parallel', '4']);
      await page.waitForSelector('#diagram .node[data-file="WORK.sh"][data-agents="2"]');
      await page.waitForFunction(
        () =>
          document.querySelector('#agents .row[data-agent="main"] .machine').textContent ===
          'awaiting-child',
      );
      await shot(page, 'joining');
      writeFileSync(gate, '');
      await page.waitForSelector('body[data-status="completed"]');
      const r = await run;
      assert.equal(r.exitCode, 0, r.all);
      assert.match(r.stdout, /"result":"item 1".*"result":"item 2"/);
      assert.match(await page.content(), /joined 2 worker\(s\); continues at COLLECT\.sh/);
    },
  );

  it('stays responsive watching a fan-out of 1,000 script workers', needsChromium, async () => {
    const gate = join(box.dir, 'gate-fan');
    const wf = box.write(
      {
        'START.sh':
          '#!/bin/sh\ni=0\nwhile [ $i -lt 1000 ]; do i=$((i+1)); echo "<fork next=\\"DONE.sh\\" n=\\"$i\\">WORK.sh</fork>"; done\n',
        'DONE.sh': '#!/bin/sh\necho "<result>fanned out</result>"\n',
        'WORK.sh': `#!/bin/sh\n${waitFor(gate)}echo "<result>ok</result>"\n`,
      },
      'fan',
    );
    const { run, page } = await watch([wf, '--max-parallel', '4']);
    await page.waitForSelector('#diagram .node[data-file="WORK.sh"][data-agents="1000"]', {
      timeout: 60_000,
    });
    assert.equal(await text(page, '#agent-count'), '1001');
    // Only the rows in view are in the page.
    assert.ok((await page.$$('#agents .row')).length < 60);
    // A click on the "idle" filter, handled and painted, measured in the page.
    const ms = await page.evaluate(async () => {
      const t0 = performance.now();
      document.querySelector('#chips button[data-machine="idle"]').click();
      await new Promise<void>((resolve) => requestAnimationFrame(resolve));
      return performance.now() - t0;
    });
    assert.ok(ms < 500, `the filter took ${ms} ms`);
    const rows = Number(await page.$eval('#agents', (e) => (e as unknown as El).dataset.rows));
    assert.ok(rows > 900 && rows < 1000, `${rows} idle workers listed`);
    await shot(page, 'fan-out');
    writeFileSync(gate, '');
    await page.waitForSelector('body[data-status="completed"]', { timeout: 120_000 });
    assert.equal(await text(page, '#chips button[data-machine="terminated"]'), 'terminated 1001');
    const r = await run;
    assert.equal(r.exitCode, 0, r.all);
  });
});
