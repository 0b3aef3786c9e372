import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readRunState } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';
import { fanOut, priceWorkers } from '../../helpers/fan-out.js';
import { McpSession } from '../../helpers/mcp-client.js';

/*
 * `raymond mcp` passes a tool call's `budget` to its run (issue 51, "every
 * entry point"): a fan-out of ten workers (real `claude`, scripted API) at
 * --max-parallel 10 (the project's config), called with a budget of 2.5
 * turns, ends `budget_exceeded` within the budget plus one turn, its
 * reservations held by the server's run as by a CLI run.
 */

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

describe('raymond mcp: a tool call with a budget on a fan-out (real claude, scripted API)', () => {
  it("ends within the call's budget plus one turn, the budget kept in the run's state", async (t) => {
    const turn = await priceWorkers(box);
    const files = Object.entries(fanOut(10)).map(([name, text]) => [`fan/${name}`, text]);
    const roots = box.write(Object.fromEntries(files), 'roots');
    // The runs' width, as a project sets it: every worker may start at once but for the budget.
    mkdirSync(join(box.dir, '.raymond'), { recursive: true });
    writeFileSync(join(box.dir, '.raymond/config.toml'), '[raymond]\nmax_parallel = 10\n');
    const budget = Number((2.5 * turn).toFixed(6));
    const mcp = await McpSession.start(box.dir, ['--root', roots, '--wait', '120'], {
      env: box.env(),
    });
    try {
      const served = box.server.served;
      const r = await mcp.call('fan', { budget, wait_seconds: 120 });
      const turns = box.server.served - served;
      t.diagnostic(`${turns} turns, spent ${r.report.cost_usd} for ${budget} (a turn ${turn})`);
      assert.equal(r.report.status, 'budget_exceeded', `${r.text}\n${mcp.stderr.slice(-2000)}`);
      assert.equal(r.report.budget_usd, budget);
      assert.ok(
        r.report.cost_usd <= budget + turn + 1e-9,
        `${r.report.cost_usd} > ${budget} + ${turn} (${turns} turns)`,
      );
      assert.ok(turns >= 2 && turns <= 4, `${turns} turns, where 10 would start without a budget`);
      const state = readRunState(join(box.dir, '.raymond/mcp-state', `${r.report.run_id}.json`));
      assert.equal(state.options.budget_usd, budget);
      assert.equal(state.status, 'budget_exceeded');
      assert.ok(Math.abs(state.total_cost_usd - r.report.cost_usd) < 1e-9);
      assert.notEqual(state.options.budget_hard, true, 'the soft line unless asked');
      // budget_hard: the hard line, kept in the run's state as a --budget-hard run's is.
      const hard = await mcp.call('fan', { budget, budget_hard: true, wait_seconds: 120 });
      assert.equal(hard.report.status, 'budget_exceeded', hard.text);
      const hardState = readRunState(
        join(box.dir, '.raymond/mcp-state', `${hard.report.run_id}.json`),
      );
      assert.equal(hardState.options.budget_hard, true);
      assert.ok(hard.report.cost_usd <= budget + turn + 1e-9, `${hard.report.cost_usd}`);
    } finally {
      await mcp.close();
    }
  });
});
