import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { findChromium, freePort, launchBrowser, type TestBrowser } from '../../helpers/browser.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';
import { CLI } from '../../helpers/cli.js';

const chromium = findChromium();
const needsChromium = {
  skip: chromium
    ? false
    : 'no chromium: the live page is tested in headless Chromium (apt-get install -y chromium)',
};

declare const document: { getElementById(id: string): { textContent: string | null } | null };

describe("the live page shows the account's width (real claude, headless Chromium)", () => {
  const box = new ClaudeSandbox();
  let browser: TestBrowser | undefined;
  before(async () => {
    await box.start();
    box.server.on(/^Worker/, { text: '<result>done</result>' });
    box.server.limit(0.5);
    if (chromium) browser = await launchBrowser(chromium);
  });
  after(async () => {
    await browser?.close();
    await box.stop();
  });

  it(
    'heads the run with "claude: paced at N requests a minute (the API\'s limit); K at once" once the API tells its rate',
    needsChromium,
    async () => {
      const forks = Array.from({ length: 16 }, (_, i) => `<fork n="${i}">WORKER.md</fork>`);
      const wf = box.write(
        {
          'START.sh': `#!/usr/bin/env bash\ncat <<'EOF'\n${forks.join('\n')}\n<goto>DONE.sh</goto>\nEOF\n`,
          'WORKER.md': 'Worker {{n}}: say the word.',
          'DONE.sh': '#!/usr/bin/env bash\necho "<result>all forked</result>"\n',
        },
        'page',
      );
      const port = await freePort();
      const run = execa(
        process.execPath,
        [CLI, wf, `--inspect=${port}`, '--inspect-wait', '--no-debug'],
        { cwd: box.dir, env: box.env(), stdin: 'pipe', reject: false, all: true, timeout: 240_000 },
      );
      let printed = '';
      await new Promise<void>((resolve, reject) => {
        run.stderr.on('data', (c: Buffer) => {
          printed += String(c);
          if (printed.includes(`/live `)) resolve();
        });
        void run.then(() => reject(new Error(`raymond ended first:\n${printed}`)));
      });
      const page = await browser!.page();
      await page.goto(`http://localhost:${port}/live`);
      run.stdin.end();
      const r = await run;
      assert.equal(r.exitCode, 0, r.all);
      assert.match(r.all, /claude: paced at 30 requests a minute \(the API's limit\); \d+ at once/);
      // The page folded the same events: its header says the width the run ended with.
      await page.waitForFunction(
        () => /^claude: /.test(document.getElementById('run-width')?.textContent ?? ''),
        { timeout: 10_000 },
      );
      await page.screenshot({ path: join(box.dir, 'width.png') });
      const shown = await page.$eval('#run-width', (e) => e.textContent ?? '');
      assert.match(
        shown,
        /^claude: (paced at 30 requests a minute \(the API's limit\); \d+ at once|recovering: \d+ at once \(at most \d+\))$/,
      );
    },
  );
});
