import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'puppeteer-core';
import { ROOT, Sandbox, sh } from '../helpers/cli.js';
import { findChromium, launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { countColour, decodePng, type Image } from '../helpers/png.js';
import { api, startServe, type ServeProcess } from '../helpers/serve.js';

const chromium = findChromium();
// Each test carries the skip, not the suite: node:test counts a skipped suite as no skipped test at all.
const needsChromium = {
  skip: chromium
    ? false
    : "no chromium: raymond serve's page is tested in headless Chromium (apt-get install -y chromium)",
};
const box = new Sandbox();
const GATE = join(box.dir, 'gate-fan');
let browser: TestBrowser | undefined;
let server: ServeProcess | undefined;
before(async () => {
  if (!chromium) return;
  browser = await launchBrowser(chromium);
  const roots = box.write(
    {
      // Shows a file and asks for a text file in a slot; the answered state reads it from its ask's folder.
      'upload/START.sh': sh(
        'echo shown > "$RAYMOND_TASK_FOLDER/report.txt"',
        'echo \'<ask next="READ.sh" upload_slots="notes.txt:text/plain" display_files="report.txt:Report.txt">Send your notes</ask>\'',
      ),
      // A fan-out of 1,000 script workers held at a gate the test opens.
      'fan/START.sh': sh(
        'i=0',
        'while [ $i -lt 1000 ]; do i=$((i+1)); echo "<fork next=\\"DONE.sh\\" n=\\"$i\\">WORK.sh</fork>"; done',
      ),
      'fan/DONE.sh': sh('echo "<result>fanned out</result>"'),
      'fan/WORK.sh': sh(
        `for n in $(seq 1200); do [ -f '${GATE}' ] && break; sleep 0.1; done`,
        'echo "<result>ok</result>"',
      ),
      // A workflow on Codex: its form offers Codex's models and efforts (a script state: nothing runs codex).
      'on-codex/workflow.yaml': 'backend: codex\n',
      'on-codex/START.sh': sh('echo "<result>ok</result>"'),
      'upload/READ.sh': sh(
        'echo "<result>$RAYMOND_INPUT / $(cat "$RAYMOND_TASK_FOLDER/asks/$RAYMOND_ASK_ID/notes.txt")</result>"',
      ),
    },
    'roots',
  );
  server = await startServe(['--root', join(ROOT, 'workflows/examples'), '--root', roots], box.dir);
});
after(async () => {
  await server?.stop();
  await browser?.close();
  box.remove();
});

/** What the functions run in the page use of it (the tests are type-checked without the DOM library). */
interface El {
  dataset: Record<string, string | undefined>;
  value: string;
  textContent: string | null;
  hidden: boolean;
  click(): void;
  getAttribute(name: string): string | null;
}
declare const document: {
  querySelectorAll(selector: string): ArrayLike<El>;
  querySelector(selector: string): El | null;
};

/** Colours of the pages' stylesheets: the header, the badge counting agents in a state box, an ask's card. */
const HEADER = '#1d3557';
const BADGE = '#d53f8c';
const ASK_CARD = '#fffaf0';
/** The fill of a script state's box in the diagram's own style. */
const SCRIPT_BOX = '#fff4e0';

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

/** Fills the launch form of a workflow on `/` and starts it; the run's id, from the link the page shows. */
async function launch(page: Page, workflow: string, input: string): Promise<string> {
  const form = `form.launch[data-workflow="${workflow}"]`;
  await page.waitForSelector(form);
  await page.type(`${form} textarea[name=input]`, input);
  await page.click(`${form} button[type=submit]`);
  await page.waitForSelector(`${form} .result a.run-link`);
  return text(page, `${form} .result a.run-link`);
}

async function answer(
  page: Page,
  prompt: RegExp,
  response: string,
  file?: { slot: string; path: string },
): Promise<void> {
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
  // The file input's handle (typed as a plain element: the tests are type-checked without the DOM library).
  if (file)
    await (
      (await cards[0]!.$(`input[type=file][name="${file.slot}"]`)) as unknown as {
        uploadFile(...paths: string[]): Promise<void>;
      }
    ).uploadFile(file.path);
  await cards[0]!.$eval('textarea', (t, value) => ((t as unknown as El).value = value), response);
  await cards[0]!.$eval('button[type=submit]', (b) => (b as unknown as El).click());
}

/** What a workflow's launch form offers: the models of its model field's list and the choices of its effort. */
async function offered(
  page: Page,
  workflow: string,
): Promise<{ models: string[]; efforts: string[] }> {
  const form = `form.launch[data-workflow="${workflow}"]`;
  await page.waitForSelector(form);
  const list = await page.$eval(`${form} input[name=model]`, (e) => e.getAttribute('list'));
  assert.ok(list, `${workflow}'s model field has a list`);
  const values = (selector: string) =>
    page.$$eval(selector, (options) => (options as unknown as El[]).map((o) => o.value));
  return {
    models: await values(`datalist[id="${list}"] option`),
    efforts: await values(`${form} select[name=effort] option`),
  };
}

describe("raymond serve's web page, in headless Chromium", () => {
  it(
    "offers each workflow's own backend's models and efforts in its launch form",
    needsChromium,
    async () => {
      const page = await browser!.page();
      await page.goto(`${server!.url}/`);
      // The approval example names no backend: Claude Code's aliases and efforts ('' is the workflow's own).
      assert.deepEqual(await offered(page, 'approval'), {
        models: ['opus', 'sonnet', 'haiku'],
        efforts: ['', 'low', 'medium', 'high'],
      });
      const codex = await offered(page, 'on-codex');
      assert.ok(
        codex.models.includes('gpt-6.2-sol'),
        `Codex's default model in ${codex.models.join(', ')}`,
      );
      assert.ok(!codex.models.includes('opus'), `no Claude alias in ${codex.models.join(', ')}`);
      assert.deepEqual(codex.efforts, [
        '',
        'none',
        'minimal',
        'low',
        'medium',
        'high',
        'xhigh',
        'max',
      ]);
    },
  );

  it(
    'launches the approval example from the form, watches it move on its run page, answers it there, sees it complete',
    needsChromium,
    async () => {
      const page = await browser!.page();
      await page.goto(`${server!.url}/`);
      assert.equal(await text(page, '#heading'), 'raymond serve');
      const approval = 'form.launch[data-workflow="approval"]';
      await page.waitForSelector(approval);
      assert.match(await text(page, approval), /Plan approval/);
      assert.match(await text(page, approval), /Change \(required\)/);
      assert.equal(
        await page.$eval(`${approval} input[name=budget]`, (e) => e.getAttribute('placeholder')),
        '1',
      );
      const id = await launch(page, 'approval', 'rename foo');
      assert.match(id, /^approval-[0-9a-f]{8}$/);
      // The runs list shows it, polled: status, cost against budget, one pending ask.
      await page.waitForSelector(`#runs .row[data-run="${id}"] .status.asking`);
      assert.equal(await text(page, `#runs .row[data-run="${id}"] .cost`), '$0.00 of $1.00');
      assert.equal(await text(page, `#runs .row[data-run="${id}"] .asks-pending`), '1');
      const listed = await shot(page, 'serve-index');
      assert.ok(countColour(listed, HEADER) > 10_000, 'the header is drawn');
      const href = await page.$eval(`#runs .row[data-run="${id}"] a`, (a) =>
        a.getAttribute('href'),
      );
      assert.equal(href, `/ui/runs/${id}`);

      await page.goto(`${server!.url}${href}`);
      assert.equal(await text(page, '#heading'), `raymond serve: run ${id}`);
      assert.match(await text(page, '#note'), /The server's live page of this run/);
      await page.waitForSelector('#diagram .node[data-file="1_START.sh"][data-agents="1"]');
      await page.waitForSelector('.ask pre');
      assert.match(
        await text(page, '.ask pre'),
        /^Plan for "rename foo" is in .*plan\.md: three steps/,
      );
      assert.deepEqual(await marked(page), { '1_START.sh': 1 });
      assert.equal(await text(page, '#agents .row[data-agent="main"] .machine'), 'asking');
      // The header says what the agent and the runs list say.
      await page.waitForFunction(
        () => document.querySelector('#run-status')?.textContent === 'asking',
      );
      assert.equal(
        await page.$eval('#result-panel', (e) => (e as unknown as El).hidden),
        true,
        'no result yet',
      );
      assert.equal(await text(page, '#run-cost'), '$0.00 of $1.00');
      // Nothing reserved while a script's ask waits: what the budget has left beside the cost.
      assert.equal(await text(page, '#run-budgets'), 'reserved $0.00, $1.00 left');
      const asking = await shot(page, 'serve-asking');
      assert.ok(countColour(asking, HEADER) > 10_000, 'the header is drawn');
      assert.ok(countColour(asking, BADGE) > 100, 'the state box with the agent has its badge');
      assert.ok(countColour(asking, ASK_CARD) > 5_000, 'the question is shown');
      assert.ok(
        countColour(asking, SCRIPT_BOX) > 2_000,
        'the diagram brings its style: script states are drawn in their colour',
      );

      // A change request: DECIDE.sh notes it and asks again, so the agent moves to another box.
      await answer(page, /^Plan for/, 'add tests');
      await page.waitForSelector('#diagram .node[data-file="DECIDE.sh"][data-agents="1"]');
      assert.deepEqual(await marked(page), { 'DECIDE.sh': 1 });
      // The diagram can move before the new question's card is drawn: the shot waits for the card.
      await page.waitForFunction(() =>
        Array.from(document.querySelectorAll('.ask pre')).some((p) =>
          /^Noted in/.test(p.textContent ?? ''),
        ),
      );
      const moved = await shot(page, 'serve-moved');
      assert.ok(countColour(moved, BADGE) > 100);
      assert.ok(countColour(moved, ASK_CARD) > 5_000, 'the second question is shown');

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
      await page.waitForSelector('#connection:not(.live)');
      assert.equal(await text(page, '#run-status'), 'completed');
      // The run's result, as the API has it.
      const result = (await api(`${server!.url}/runs/${id}`)).body.result as string;
      assert.equal(await text(page, '#run-result'), result);
      assert.match(await text(page, '#result-panel'), /^Result\s*implemented: rename foo/);
      const done = await shot(page, 'serve-completed');
      assert.ok(countColour(done, HEADER) > 10_000);
      assert.equal(countColour(done, BADGE), 0, 'no badge once every agent is done');

      const run = await api(`${server!.url}/runs/${id}`);
      assert.equal(run.body.status, 'completed');
      assert.match(run.body.result, /^implemented: rename foo/);
      // A page opened after the end shows the run as it ended, from the snapshot alone.
      await page.reload();
      await page.waitForSelector('body[data-status="completed"]');
      assert.match(await text(page, '#log'), /run completed/);
      assert.equal(await text(page, '#run-result'), run.body.result);
      assert.equal(await page.$eval('#result-panel', (e) => (e as unknown as El).hidden), false);
      await page.goto(`${server!.url}/`);
      await page.waitForSelector(`#runs .row[data-run="${id}"] .status.completed`);
      assert.deepEqual(browser!.offsite, [], 'the pages loaded nothing from the network');
      await page.close();
    },
  );

  it(
    'answers an ask with an upload slot with a file chosen on the page; the next state reads it',
    needsChromium,
    async () => {
      const notes = join(box.write({ 'notes.txt': 'three notes\n' }, 'files'), 'notes.txt');
      const page = await browser!.page();
      await page.goto(`${server!.url}/`);
      const id = await launch(page, 'upload', 'from the page');
      await page.goto(`${server!.url}/ui/runs/${id}`);
      await page.waitForSelector('.ask input[type=file][name="notes.txt"]');
      // The shown file links to the server's copy, under its label.
      const link = await page.$eval('.ask .files a', (a) => a.getAttribute('href'));
      assert.match(link, new RegExp(`^/runs/${id}/asks/ask_main_\\d+/files/Report\\.txt$`));
      assert.equal(
        (await fetch(`${server!.url}${link}`)).headers.get('content-type'),
        'text/plain',
      );
      assert.equal(await (await fetch(`${server!.url}${link}`)).text(), 'shown\n');
      await answer(page, /^Send your notes/, 'here they are', { slot: 'notes.txt', path: notes });
      await page.waitForSelector('body[data-status="completed"]');
      const run = await api(`${server!.url}/runs/${id}`);
      assert.equal(run.body.result, 'here they are / three notes');
      await page.close();
    },
  );

  it(
    'stays usable with a run of 1,000 agents: the run page lists only the rows in view, the runs list polls no agents',
    needsChromium,
    async () => {
      const page = await browser!.page();
      await page.goto(`${server!.url}/`);
      await page.waitForSelector('form.launch[data-workflow="fan"]');
      await page.click('form.launch[data-workflow="fan"] button[type=submit]');
      await page.waitForSelector('form.launch[data-workflow="fan"] .result a.run-link');
      const id = await text(page, 'form.launch[data-workflow="fan"] .result a.run-link');
      await page.goto(`${server!.url}/ui/runs/${id}`);
      await page.waitForSelector('#diagram .node[data-file="WORK.sh"][data-agents="1000"]', {
        timeout: 90_000,
      });
      assert.equal(await text(page, '#agent-count'), '1001');
      assert.ok(
        (await page.$$('#agents .row')).length < 60,
        'only the rows in view are in the page',
      );
      await shot(page, 'serve-fan-out');
      // What the server page polls every 2 seconds stays small however many agents a run has.
      const polled = await fetch(`${server!.url}/runs?summary=true`).then((r) => r.text());
      const mine = (JSON.parse(polled) as Array<{ run_id: string; agent_count: number }>).find(
        (r) => r.run_id === id,
      )!;
      assert.equal(mine.agent_count, 1001);
      assert.ok(polled.length < 4_000, `${polled.length} bytes polled`);
      writeFileSync(GATE, '');
      await page.waitForSelector('body[data-status="completed"]', { timeout: 120_000 });
      assert.equal(await text(page, '#chips button[data-machine="terminated"]'), 'terminated 1001');
      await page.close();
    },
  );

  it(
    'with a token: the login form first, a wrong token refused, then the pages work with the cookie',
    needsChromium,
    async () => {
      const s = await startServe(
        ['--root', join(ROOT, 'workflows/examples'), '--host', '0.0.0.0'],
        box.dir,
        { RAYMOND_SERVE_TOKEN: 's3cret' },
      );
      const url = s.url.replace('0.0.0.0', '127.0.0.1');
      const context = await browser!.browser.createBrowserContext();
      try {
        const page = await context.newPage();
        await page.setViewport({ width: 1400, height: 1000 });
        // A run's page without the cookie sends the browser to the login.
        await page.goto(`${url}/ui/runs/whatever`);
        assert.equal(new URL(page.url()).pathname, '/');
        await page.waitForSelector('#login:not([hidden])');
        assert.equal(await page.$eval('#content', (e) => (e as unknown as El).hidden), true);
        await page.type('#token', 'wrong');
        await page.click('#login-form button[type=submit]');
        await page.waitForFunction(
          () => (document.querySelector('#login-error')?.textContent ?? '') !== '',
        );
        assert.equal(await text(page, '#login-error'), 'wrong token');
        assert.equal(await page.$eval('#content', (e) => (e as unknown as El).hidden), true);
        await page.$eval('#token', (e) => ((e as unknown as El).value = ''));
        await page.type('#token', 's3cret');
        await page.click('#login-form button[type=submit]');
        // The launch is a POST from the page: it passes the token and origin checks with the cookie.
        const id = await launch(page, 'approval', 'behind a token');
        await page.goto(`${url}/ui/runs/${id}`);
        await page.waitForSelector('#diagram .node[data-file="1_START.sh"][data-agents="1"]');
        await answer(page, /^Plan for "behind a token"/, 'approve');
        await page.waitForSelector('body[data-status="completed"]');
        const run = await api(`${url}/runs/${id}`, 'GET', undefined, {
          Authorization: 'Bearer s3cret',
        });
        assert.match(run.body.result, /^implemented: behind a token/);
      } finally {
        await context.close();
        await s.stop();
      }
    },
  );
});
