import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { joinedEntries, sh, summary } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';
import { startServe, startedUntil } from '../../helpers/serve.js';

/*
 * Branch budgets (issue 51) with the real `claude` against the scripted
 * API: `<fork budget="...">` caps a worker and the workers it forks; a
 * branch out of money ends that worker as failed (error budget), its
 * `<join>` gets it like any failure, and the parent completes.
 */

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

const USAGE = { input_tokens: 20_000, output_tokens: 100 };

describe('branch budgets (real claude, scripted API)', () => {
  let turn = 0;

  before(async () => {
    box.server.on('LOOP-AGAIN', { text: '<goto>LOOP.md</goto>', usage: USAGE });
    box.server.on('ONCE-ONLY', { text: '<result>once</result>', usage: USAGE });
    const probe = await box.run([box.write({ 'START.md': 'ONCE-ONLY' }, 'probe'), '--json']);
    turn = summary(probe).total_cost_usd;
    assert.ok(turn > 0, probe.stderr);
  });

  it('a looping worker with budget= fails alone once its branch is spent; the join gets error budget; the parent completes', async () => {
    const budget = (1.5 * turn).toFixed(6);
    const wf = box.write(
      {
        'START.sh': sh(
          `echo '<fork budget="${budget}" n="1">LOOP.md</fork><fork n="2">ONCE.md</fork><join>END.sh</join>'`,
        ),
        'LOOP.md': 'LOOP-AGAIN: go round once more.',
        'ONCE.md': 'ONCE-ONLY: answer once.',
        'END.sh': sh('printf "<result>%s</result>" "$RAYMOND_INPUT"'),
      },
      'branch',
    );
    const before = box.server.served;
    const joined = joinedEntries(
      await box.run([wf, '--json', '--workflow-id', 'branch', '--max-parallel', '4']),
    );
    const loop = joined.find((j) => j.attributes.n === '1')!;
    assert.equal(loop.status, 'failed');
    assert.match(
      loop.error!,
      /budget: its budget of \$[\d.]+ is spent \(\$[\d.]+\); no new step was started/,
    );
    // Two turns: the first alone, the second alone under the budget; the third is refused.
    assert.ok(Math.abs(loop.cost_usd - 2 * turn) < 1e-9, `${loop.cost_usd} vs ${2 * turn}`);
    assert.equal(joined.find((j) => j.attributes.n === '2')?.status, 'completed');
    assert.equal(box.server.served - before, 3, 'two loop turns and one once turn');
    // The budget is kept with the worker in the state file, for --status and a resume.
    const state = box.state('branch');
    const worker = state.agents.find((a) => a.attributes.n === '1');
    assert.deepEqual(worker?.budgets, [{ branch: worker!.id, usd: Number(budget) }]);
    const status = await box.run(['--status', 'branch']);
    assert.match(
      status.stdout,
      new RegExp(`branch budget ${worker.id}: \\$[\\d.]+ of \\$[\\d.]+ spent, \\$0\\.00 left`),
    );
    const json = JSON.parse((await box.run(['--status', 'branch', '--json'])).stdout) as {
      budgets: { branches: Array<{ branch: string; spent_usd: number; left_usd: number }> };
    };
    assert.equal(json.budgets.branches[0]!.branch, worker.id);
    assert.ok(Math.abs(json.budgets.branches[0]!.spent_usd - 2 * turn) < 1e-9);
    assert.equal(json.budgets.branches[0]!.left_usd, 0);
  });

  it('--budget-per-agent gives every worker that names none its branch budget; a bad budget= is one line', async () => {
    const wf = box.write(
      {
        'START.sh': sh(`echo '<fork n="1">LOOP.md</fork><join>END.sh</join>'`),
        'LOOP.md': 'LOOP-AGAIN: go round once more.',
        'END.sh': sh('printf "<result>%s</result>" "$RAYMOND_INPUT"'),
      },
      'perAgent',
    );
    const r = await box.run([
      wf,
      '--json',
      '--workflow-id',
      'per-agent',
      '--budget-per-agent',
      (0.5 * turn).toFixed(6),
    ]);
    assert.equal(r.code, 0, r.stderr.slice(-2000));
    const [entry] = JSON.parse(summary(r).results.main!) as Array<{
      status: string;
      error: string;
    }>;
    assert.equal(entry!.status, 'failed');
    assert.match(entry!.error, /budget: its budget of/);
    assert.equal(
      box.state('per-agent').options.budget_per_agent_usd,
      Number((0.5 * turn).toFixed(6)),
    );

    const bad = box.write(
      { 'START.sh': sh(`echo '<fork budget="lots">ONCE.md</fork><join>END.sh</join>'`) },
      'bad',
    );
    const b = await box.run([bad, '--workflow-id', 'bad']);
    assert.notEqual(b.code, 0);
    assert.match(b.stderr, /budget="lots" is not an amount in USD above 0/);
    assert.doesNotMatch(b.stderr, /\n\s+at /, 'no stack trace');
  });

  it('raymond serve: GET /runs/{id} shows the branch spent and left, and the run page says so', async (t) => {
    const roots = box.write(
      {
        'capped/START.sh': sh(
          `echo '<fork budget="${(1.5 * turn).toFixed(6)}" n="1">LOOP.md</fork><join>END.sh</join>'`,
        ),
        'capped/LOOP.md': 'LOOP-AGAIN: go round once more.',
        'capped/END.sh': sh('printf "<result>%s</result>" "$RAYMOND_INPUT"'),
      },
      'roots',
    );
    const server = await startServe(['--root', roots], box.dir, box.env());
    t.after(() => server.stop());
    const { run } = await startedUntil(
      server.url,
      { workflow_id: 'capped', budget: 1 },
      'completed',
    );
    const budgets = run.budgets as {
      run: { budget_usd: number; spent_usd: number; reserved_usd: number; left_usd: number };
      branches: Array<{ branch: string; budget_usd: number; spent_usd: number; left_usd: number }>;
    };
    assert.equal(budgets.run.budget_usd, 1);
    assert.equal(budgets.run.reserved_usd, 0);
    assert.ok(Math.abs(budgets.run.left_usd - (1 - budgets.run.spent_usd)) < 1e-9);
    assert.equal(budgets.branches.length, 1);
    assert.ok(Math.abs(budgets.branches[0]!.spent_usd - 2 * turn) < 1e-9, JSON.stringify(budgets));
    assert.equal(budgets.branches[0]!.left_usd, 0);
  });
});
