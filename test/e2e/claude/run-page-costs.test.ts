import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'puppeteer-core';
import { usd } from '../../../machines/money.js';
import { sh, summary } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';
import { findChromium, launchBrowser, type TestBrowser } from '../../helpers/browser.js';
import { api, startServe, until, type ServeProcess } from '../../helpers/serve.js';

const chromium = findChromium();
const needsChromium = {
  skip: chromium
    ? false
    : "no chromium: the run page's cost table is tested in headless Chromium (apt-get install -y chromium)",
};
const box = new ClaudeSandbox();
const GATE = join(box.dir, 'gate');
let browser: TestBrowser | undefined;
let server: ServeProcess | undefined;

before(async () => {
  if (!chromium) return;
  await box.start();
  browser = await launchBrowser(chromium);
  // One API call of the default usage prices PLAN.md; WORK.md's calls report three times that usage.
  box.server.on('COSTS-UNIT', { text: '<result>x</result>' });
  box.server.on('COSTS-PLAN', { text: '<goto>CHECK.sh</goto>' });
  box.server.on('COSTS-WORK', {
    text: '<goto>CHECK.sh</goto>',
    usage: { input_tokens: 3000, output_tokens: 300 },
  });
  const roots = box.write(
    {
      // Held until the page is open, so every row reaches it over the stream.
      'costs/START.sh': sh(
        `for n in $(seq 600); do [ -f '${GATE}' ] && break; sleep 0.1; done`,
        'echo "<goto>PLAN.md</goto>"',
      ),
      'costs/PLAN.md': 'COSTS-PLAN: plan it',
      // WORK.md twice, then the result.
      'costs/CHECK.sh': sh(
        'n=$(cat "$RAYMOND_TASK_FOLDER/n" 2>/dev/null || echo 0)',
        'echo $((n+1)) > "$RAYMOND_TASK_FOLDER/n"',
        'if [ "$n" -lt 2 ]; then echo "<goto>WORK.md</goto>"; else echo "<result>done</result>"; fi',
      ),
      'costs/WORK.md': 'COSTS-WORK: do it',
    },
    'roots',
  );
  server = await startServe(['--root', roots], box.dir, box.env());
});
after(async () => {
  await server?.stop();
  await browser?.close();
  await box.stop();
});

/** What the functions run in the page use of it (the tests are type-checked without the DOM library). */
declare const document: {
  body: { dataset: Record<string, string | undefined> };
  querySelectorAll(selector: string): ArrayLike<unknown>;
};

/** The cost table's cells, row by row. */
function table(page: Page): Promise<string[][]> {
  return page.$$eval('#costs-body tr', (rows) =>
    rows.map((tr) =>
      Array.from(
        (tr as unknown as { children: ArrayLike<{ textContent: string | null }> }).children,
      ).map((td) => td.textContent ?? ''),
    ),
  );
}

interface StateCost {
  state: string;
  steps: number;
  turns: number;
  cost_usd: number;
  share: number;
  wall_ms: number;
}

/** `GET /runs/{id}`'s cost_by_state as the page shows it: money and time as `--status` does. */
function shown(rows: StateCost[]): string[][] {
  const time = (ms: number) => {
    if (ms < 10_000) return `${(ms / 1000).toFixed(1)}s`;
    const s = Math.round(ms / 1000);
    return (s >= 60 ? `${Math.floor(s / 60)}m` : '') + `${s % 60}s`;
  };
  return rows.map((r) => [
    r.state,
    String(r.steps),
    String(r.turns),
    usd(r.cost_usd),
    `${Math.round(r.share * 100)}%`,
    time(r.wall_ms),
  ]);
}

describe("the run page's cost by state (real claude, scripted API, headless Chromium)", () => {
  it(
    'fills the table from the stream as steps end, dearest first, the same as GET /runs/{id}, and again from a reload',
    needsChromium,
    async () => {
      const unit = summary(
        await box.run([box.write({ 'START.md': 'COSTS-UNIT' }, 'unit'), '--json']),
      ).total_cost_usd;
      assert.ok(unit > 0);

      const started = await api(`${server!.url}/runs`, 'POST', {
        workflow_id: 'costs',
        input: 'go',
      });
      assert.equal(started.status, 201, JSON.stringify(started.body));
      const id = started.body.run_id as string;
      const page = await browser!.page(1400, 1100);
      await page.goto(`${server!.url}/ui/runs/${id}`);
      await page.waitForSelector('#diagram .node[data-file="START.sh"][data-agents="1"]');
      assert.equal(
        await page.$eval('#costs-empty', (e) => (e as unknown as { hidden: boolean }).hidden),
        false,
      );
      writeFileSync(GATE, '');

      await page.waitForFunction(() => document.body.dataset.status === 'completed', {
        timeout: 120_000,
      });
      await page.waitForFunction(() => document.querySelectorAll('#costs-body tr').length === 4);
      const live = await table(page);
      const run = await until(async () => {
        const r = await api(`${server!.url}/runs/${id}`);
        return r.body.status === 'completed' ? r.body : undefined;
      }, 'the run completed');
      const rows = run.cost_by_state as StateCost[];
      assert.deepEqual(live, shown(rows), 'the page shows what GET /runs/{id} gives, row for row');
      // What the scripted API charged: 1 unit for PLAN.md, 3 for each of WORK.md's two visits, nothing for scripts.
      assert.deepEqual(
        live.map((r) => r.slice(0, 5)),
        [
          ['WORK.md', '2', '2', usd(6 * unit), '86%'],
          ['PLAN.md', '1', '1', usd(unit), '14%'],
          ['CHECK.sh', '3', '0', '$0.00', '0%'],
          ['START.sh', '1', '0', '$0.00', '0%'],
        ],
      );
      assert.ok(
        Math.abs(rows[0]!.cost_usd - 6 * unit) < 1e-9,
        `${rows[0]!.cost_usd} vs ${6 * unit}`,
      );
      assert.match(live[3]![5]!, /^\d+\.\ds$/, 'the gated script took seconds, shown in tenths');

      // A page opened after the run: the same table, from the snapshot.
      await page.reload();
      await page.waitForFunction(() => document.querySelectorAll('#costs-body tr').length === 4);
      assert.deepEqual(await table(page), live);
      const panel = await page.$('#costs-panel');
      await panel!.screenshot({ path: join(box.dir, 'run-page-costs.png') });
    },
  );
});
