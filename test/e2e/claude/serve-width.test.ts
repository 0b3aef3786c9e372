import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';
import { answerWorkers, fanOut } from '../../helpers/fan-out.js';
import { api, startServe, until } from '../../helpers/serve.js';

/*
 * The runs of one `raymond serve` share each account's width: two runs of
 * 20 turns against a scripted Messages API that allows 2 requests a second
 * (the real `claude`) start no more turns together than the account takes.
 * Two separate commands against the same limit refused 26-31 requests
 * (queue-width.test.ts's comparison); two runs sharing a width, 5-13.
 */

const N = 20;

describe('raymond serve: its runs share the account width (real claude, a rate-limited scripted API)', () => {
  it(`two runs of ${N} turns at once against 2 requests a second: both complete, refusals as for one run`, async (t) => {
    const box = new ClaudeSandbox();
    await box.start();
    t.after(() => box.stop());
    answerWorkers(box.server);
    box.server.limit(2);
    const roots = box.write(
      Object.fromEntries(Object.entries(fanOut(N)).map(([k, v]) => [`wide/${k}`, v])),
      'roots',
    );
    mkdirSync(join(box.dir, '.raymond'), { recursive: true });
    writeFileSync(join(box.dir, '.raymond/config.toml'), '[raymond]\nmax_parallel = 50\n');
    const server = await startServe(['--root', roots], box.dir, box.env());
    t.after(() => server.stop());
    const started = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await api(`${server.url}/runs`, 'POST', { workflow_id: 'wide', input: 'go' });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      ids.push(r.body.run_id as string);
    }
    const ended = await Promise.all(
      ids.map((id) =>
        until(
          async () => {
            const r = await api(`${server.url}/runs/${id}`);
            return ['completed', 'failed', 'paused', 'cancelled'].includes(r.body.status)
              ? r.body
              : undefined;
          },
          `run ${id} ended`,
          6000,
        ),
      ),
    );
    const { refused, served } = box.server;
    t.diagnostic(
      `two runs in one serve: ${((Date.now() - started) / 1000).toFixed(1)} s, ${refused} refused, ${served} served; widths ${JSON.stringify(ended.map((b) => b.account_widths))}`,
    );
    for (const b of ended) assert.equal(b.status, 'completed', JSON.stringify(b));
    assert.equal(served, 2 * N);
    // Each run heard the shared width narrow, whichever run's turn was refused.
    for (const b of ended) assert.equal(b.account_widths?.[0]?.backend, 'claude');
    assert.ok(refused <= 15, `${refused} refused for ${served} served`);
  });
});
