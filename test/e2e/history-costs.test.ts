import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CostRow } from '../../machines/cost-table.js';
import type { RunCosts, WorkflowStats } from '../../src/history/history-stats.js';
import type { StepRecord } from '../../src/history/history-types.js';
import { summary } from '../helpers/cli.js';
import { ClaudeSandbox } from '../helpers/claude-sandbox.js';

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

const RUNS = ['priced-1', 'priced-2', 'priced-3'];

function near(actual: number, expected: number, what: string, tolerance = 1e-12): void {
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} vs ${expected}`);
}

/** The cost of each step as the run's debug log recorded it: agent, state, cost. */
function loggedCosts(run: string): Array<[string, string, number]> {
  return readFileSync(join(box.dir, '.raymond', 'debug', run, 'transitions.log'), 'utf8')
    .split('\n')
    .flatMap((line) => {
      const m = /\[(\S+)\] (\S+) -> .* cost=\$([\d.]+) /.exec(line);
      return m ? [[m[1]!, m[2]!, Number(m[3])] as [string, string, number]] : [];
    });
}

async function json<T>(args: string[]): Promise<T> {
  const r = await box.run(args);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as T;
}

describe('raymond stats against the true costs of real claude runs (scripted API, known tokens)', () => {
  let wf = '';
  /** Per-token prices of this claude's default model, solved from the START steps. */
  const price = { input: 0, output: 0 };

  before(async () => {
    const s = box.server;
    // START's input grows by 1,000 tokens per run: its three steps cost three different amounts.
    s.on('PRICED-START', (_r, n) => ({
      text: '<fork next="END.md" item="1">W.md</fork>\n<fork next="END.md" item="2">W.md</fork>',
      usage: { input_tokens: 1000 * n, output_tokens: 100 },
    }));
    s.on('PRICED-WORKER', {
      text: '<result>w</result>',
      usage: { input_tokens: 2000, output_tokens: 50 },
    });
    // END forgets its tag once per run: a reminder, so two turns per step.
    s.on(
      (r) => r.main && r.transcript.includes('PRICED-END'),
      (r) => ({
        text: r.transcript.includes('no tag here') ? '<result>end</result>' : 'no tag here',
        usage: { input_tokens: 500, output_tokens: 20 },
      }),
    );
    wf = box.write(
      {
        'START.md': 'PRICED-START',
        'W.md': 'PRICED-WORKER', // A policy: a reply without a tag gets a reminder (without one, it fails the agent).
        'END.md': '---\nallowed_transitions:\n  - { tag: result }\n---\nPRICED-END',
      },
      'priced',
    );
    for (const id of RUNS) {
      const r = await box.run([wf, '--json', '--workflow-id', id]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(summary(r).results.main, 'end');
    }
    const start = RUNS.map((id) => loggedCosts(id).find(([, state]) => state === 'START.md')![2]);
    price.input = (start[2]! - start[0]!) / 2000;
    price.output = (start[0]! - 1000 * price.input) / 100;
  });

  it('the three runs are priced by their tokens: START grows by a fixed step, W and END cost what their tokens do', () => {
    assert.ok(price.input > 0 && price.output > price.input, JSON.stringify(price));
    for (const id of RUNS)
      for (const [agent, state, cost] of loggedCosts(id)) {
        const calls = state === 'END.md' ? 2 : 1;
        const tokens =
          state === 'START.md'
            ? [1000 * (RUNS.indexOf(id) + 1), 100]
            : state === 'W.md'
              ? [2000, 50]
              : [500, 20];
        near(
          cost,
          calls * (tokens[0]! * price.input + tokens[1]! * price.output),
          `${id} ${agent} ${state}`,
          2e-6,
        );
      }
  });

  it('raymond stats WF --json: per state, p50/p90 are the true step costs (nearest rank), turns and reminders counted', async () => {
    const stats = await json<WorkflowStats>(['stats', wf, '--json']);
    assert.equal(stats.runs, 3);
    const steps = RUNS.flatMap((id) => loggedCosts(id));
    const of = (state: string) =>
      steps
        .filter(([, s]) => s === state)
        .map(([, , c]) => c)
        .sort((a, b) => a - b);
    const row = (state: string) => stats.states.find((s) => s.state === state)!;
    // Nearest rank of three: p50 is the middle one, p90 the dearest.
    near(row('START.md').costP50Usd, of('START.md')[1]!, 'START p50', 1e-6);
    near(row('START.md').costP90Usd, of('START.md')[2]!, 'START p90', 1e-6);
    for (const state of ['W.md', 'END.md']) {
      near(row(state).costP50Usd, of(state)[0]!, `${state} p50`, 1e-6);
      near(row(state).costP90Usd, of(state)[0]!, `${state} p90`, 1e-6);
    }
    assert.deepEqual(
      stats.states
        .map((s) => [s.state, s.backend, s.runs, s.steps, s.turns, s.reminders, s.failureRate])
        .sort(),
      [
        ['END.md', 'claude', 3, 3, 6, 3, 0],
        ['START.md', 'claude', 3, 3, 3, 0, 0],
        ['W.md', 'claude', 3, 6, 6, 0, 0],
      ],
    );
    const totals = await Promise.all(
      RUNS.map(
        async (id) =>
          (await json<{ total_cost_usd: number }>(['--status', id, '--json'])).total_cost_usd,
      ),
    );
    near(
      stats.totalUsd,
      totals.reduce((a, b) => a + b, 0),
      'total of the runs',
    );
    near(stats.runCostP90Usd, Math.max(...totals), 'run p90');
    // The history's step records carry each step's tokens as claude reported them.
    const key = readFileSync(
      join(box.dir, '.raymond', 'history', stats.key, 'steps.jsonl'),
      'utf8',
    );
    const starts = key
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as StepRecord)
      .filter((r) => r.state === 'START.md');
    assert.deepEqual(
      starts.map((r) => [r.run, r.tokens, r.turns, r.outcome, r.width]),
      RUNS.map((id, i) => [id, 1000 * (i + 1) + 100, 1, 'fork', 2]),
    );
  });

  it("raymond stats RUN --json: cost by state and by agent sum to the run's total_cost_usd; the forked workers have rows of their own", async () => {
    for (const id of RUNS) {
      const run = await json<RunCosts & { status: string }>(['stats', id, '--json']);
      const status = await json<{ total_cost_usd: number; cost_by_state: CostRow[] }>([
        '--status',
        id,
        '--json',
      ]);
      const sum = (rows: CostRow[]) => rows.reduce((a, r) => a + r.costUsd, 0);
      near(sum(run.byState), status.total_cost_usd, `${id} by state`);
      near(sum(run.byAgent), status.total_cost_usd, `${id} by agent`);
      near(sum(status.cost_by_state), status.total_cost_usd, `${id} --status cost_by_state`);
      assert.equal(run.status, 'completed');
      const logged = loggedCosts(id);
      assert.deepEqual(run.byAgent.map((r) => [r.name, r.steps, r.turns]).sort(), [
        ['main', 2, 3],
        ['main_w1', 1, 1],
        ['main_w2', 1, 1],
      ]);
      for (const agent of run.byAgent)
        near(
          agent.costUsd,
          logged.filter(([a]) => a === agent.name).reduce((a, [, , c]) => a + c, 0),
          `${id} ${agent.name}`,
          2e-6,
        );
    }
    const text = await box.run(['stats', 'priced-2']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^run priced-2 \(completed\): 4 steps, \$0\.\d{4}/);
    assert.match(text.stdout, /^agent +steps +turns +cost +share +time$/m);
    assert.match(text.stdout, /^main_w1 +1 +1 +\$0\.\d+ +\d+%/m);
  });

  it('rebuilt after rm -rf .raymond/history: the same runs, steps and costs (turns are not kept)', async () => {
    const before = await json<WorkflowStats>(['stats', wf, '--json']);
    rmSync(join(box.dir, '.raymond', 'history'), { recursive: true });
    const after = await json<WorkflowStats>(['stats', wf, '--json']);
    assert.equal(after.runs, before.runs);
    near(after.totalUsd, before.totalUsd, 'total');
    for (const b of before.states) {
      const a = after.states.find((s) => s.state === b.state)!;
      assert.deepEqual([a.runs, a.steps], [b.runs, b.steps], b.state);
      // The debug log keeps each step's cost to a millionth of a dollar.
      near(a.costP50Usd, b.costP50Usd, `${b.state} p50`, 1e-6);
      near(a.costP90Usd, b.costP90Usd, `${b.state} p90`, 1e-6);
    }
    const end = after.states.find((s) => s.state === 'END.md')!;
    assert.equal(
      end.turns,
      3,
      'a rebuilt step counts one turn: the reminders are not in the debug log',
    );
  });
});
