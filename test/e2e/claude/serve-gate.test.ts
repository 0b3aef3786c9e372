import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'puppeteer-core';
import { sh } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';
import { findChromium, launchBrowser, type TestBrowser } from '../../helpers/browser.js';
import { api, startServe, until, type ServeProcess } from '../../helpers/serve.js';

/*
 * The cost gate on `raymond serve`'s run page, in headless Chromium, with
 * the real `claude` and the scripted Messages API: the project's config
 * sets `confirm_over`, a markdown state forks 50 workers, the page shows
 * the gate's question; an answer it does not understand is asked again
 * with a hint, "yes" starts the workers and the run completes.
 */

const chromium = findChromium();
const needsChromium = {
  skip: chromium
    ? false
    : "no chromium: raymond serve's page is tested in headless Chromium (apt-get install -y chromium)",
};
const box = new ClaudeSandbox();
const WORKERS = 50;
let browser: TestBrowser | undefined;
let server: ServeProcess | undefined;

before(async () => {
  await box.start();
  if (!chromium) return;
  const forks = Array.from({ length: WORKERS }, (_, i) => `<fork item="${i + 1}">W.sh</fork>`);
  box.server.on('SERVE-FAN', { text: `${forks.join('\n')}\n<join>END.sh</join>` });
  const roots = box.write(
    {
      'fan/START.md':
        'SERVE-FAN: start one worker per item with <fork item="N">W.sh</fork>, then <join>END.sh</join>.',
      'fan/W.sh': sh(
        'if [ -f "$RAYMOND_TASK_FOLDER/deep" ]; then echo "<goto>DEEP.md</goto>"; else echo "<result>w $RAYMOND_ATTR_item</result>"; fi',
      ),
      'fan/DEEP.md': 'SERVE-DEEP: think hard, then <result>deep</result>',
      'fan/END.sh': sh(
        'echo "<result>joined $(echo "$RAYMOND_INPUT" | grep -o \'"agent"\' | wc -l)</result>"',
      ),
    },
    'roots',
  );
  mkdirSync(join(box.dir, '.raymond'), { recursive: true });
  writeFileSync(join(box.dir, '.raymond/config.toml'), '[raymond]\nconfirm_over = 1\n');
  browser = await launchBrowser(chromium);
  server = await startServe(['--root', roots], box.dir, box.env());
});
after(async () => {
  await server?.stop();
  await browser?.close();
  await box.stop();
});

/** What the functions run in the page use of it (the tests are type-checked without the DOM library). */
interface El {
  value: string;
  textContent: string | null;
  click(): void;
}
declare const document: { querySelectorAll(selector: string): ArrayLike<El> };

/** Waits for the one question card whose text matches, and sends `response` from it. */
async function answer(page: Page, prompt: RegExp, response: string): Promise<string> {
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
  const shown = await cards[0]!.$eval('pre', (p) => (p as unknown as El).textContent ?? '');
  await cards[0]!.$eval('textarea', (t, value) => ((t as unknown as El).value = value), response);
  await cards[0]!.$eval('button[type=submit]', (b) => (b as unknown as El).click());
  return shown;
}

describe("the cost gate on raymond serve's run page (headless Chromium, real claude)", () => {
  it(
    'shows the gate before the 50-worker fork; a hint for a bad answer; "yes" completes the run',
    needsChromium,
    async () => {
      const launched = await api(`${server!.url}/runs`, 'POST', { workflow_id: 'fan' });
      assert.equal(launched.status, 201, JSON.stringify(launched.body));
      const id = launched.body.run_id as string;
      const pending = await until(async () => {
        const r = await api(`${server!.url}/runs/${id}/pending-asks`);
        return Array.isArray(r.body) && r.body.length > 0 ? r.body : undefined;
      }, 'the gate to ask');
      assert.deepEqual(
        [
          pending[0].gate.kind,
          pending[0].gate.state,
          pending[0].gate.workers,
          pending[0].gate.amount_usd,
        ],
        ['fork', 'START.md', WORKERS, 1],
      );

      const page = await browser!.page();
      await page.goto(`${server!.url}/ui/runs/${id}`);
      const question = await answer(page, /^Cost gate: START\.md forks 50 worker/, 'maybe later');
      assert.match(
        question,
        /passes --confirm-over \$1\.00\. Go on\? Answer yes \(go on\), stop, or a new amount/,
      );
      const again = await answer(page, /^"maybe later" is not an answer here/, 'yes');
      assert.match(again, /Cost gate: START\.md forks 50 worker/);
      await page.waitForSelector('body[data-status="completed"]', { timeout: 120_000 });
      assert.equal((await page.$$('#asks .ask')).length, 0);

      // The page reads the end from the event stream; the run's record says so once its outcome is stored, a moment later.
      let run = await api(`${server!.url}/runs/${id}`);
      for (let i = 0; i < 100 && run.body.status === 'running'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        run = await api(`${server!.url}/runs/${id}`);
      }
      assert.equal(run.body.status, 'completed', JSON.stringify(run.body));
      assert.equal(run.body.result, `joined ${WORKERS}`);
      assert.equal(box.server.requestsFor('SERVE-FAN').length, 1, 'the forking step ran once');
    },
  );
});
