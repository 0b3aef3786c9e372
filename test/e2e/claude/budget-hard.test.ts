import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findTranscript } from '../../../src/agents/claude/claude-sessions.js';
import { joinedEntries, readRunState, sh, summary } from '../../helpers/cli.js';
import {
  hardArgs,
  LONG_USAGE,
  longTurn,
  priceMessage,
  resumedToEnd,
  stoppedAtBudget,
  streamedUsd,
  type HardBox,
} from '../../helpers/budget-hard.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';
import { api, startServe, startedUntil } from '../../helpers/serve.js';

/*
 * --budget-hard (issue 51, "A hard line, optional"): one long turn of the
 * real `claude` against the scripted API, each of its model messages of a
 * known, large usage, and a budget of a few messages. Without the hard line
 * the turn runs to its end (all its messages paid for); with it the turn is
 * stopped once its streamed usage takes the run to the budget, its agent
 * paused with its session, and a --resume with a larger budget goes on in
 * that session.
 */

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

const SKIP = ['--dangerously-skip-permissions'];
const SANDBOXED = { IS_SANDBOX: '1' };
/** Runs as root may skip permissions (for the long turn's Bash) only in a sandbox. */
const sandboxed: HardBox = {
  run: (args) => box.run(args, SANDBOXED),
  state: (id) => box.state(id),
};
/** A run of `wf` as `id` with `--budget budgetUsd --budget-hard` (and `extra`), its tools allowed. */
const hardRun = (wf: string, id: string, budgetUsd: number, extra: string[] = []) =>
  sandboxed.run(hardArgs(wf, id, budgetUsd, [...extra, ...SKIP]));

describe('--budget-hard stops a turn at the budget (real claude, scripted API)', () => {
  let message = 0;
  let budget = 0;
  let wf = '';
  /** Messages the whole turn takes (measured without the hard line), and those the stopped turn was served. */
  let full = 0;
  let stoppedAfter = 0;

  before(async () => {
    box.server.on(
      'HARD-LONG',
      longTurn(() => 'long done'),
    );
    message = await priceMessage(box, 'probe');
    budget = 3.5 * message;
    wf = box.write({ 'START.md': 'HARD-LONG' }, 'long');
  });

  it('without --budget-hard the turn runs to its end, past the budget', async () => {
    const served = box.server.served;
    const r = await box.run(
      [wf, '--json', '--workflow-id', 'soft', '--budget', budget.toFixed(6), ...SKIP],
      SANDBOXED,
    );
    const out = summary(r);
    assert.equal(r.code, 3, r.stderr.slice(-2000));
    assert.equal(out.status, 'budget_exceeded');
    assert.equal(out.results.main, 'long done');
    full = box.server.served - served;
    assert.ok(full >= 9, `${full} messages: every tool call and the answer`);
    assert.ok(out.total_cost_usd > 2 * budget, `${out.total_cost_usd} for a budget of ${budget}`);
  });

  it('with --budget-hard the turn is stopped mid-stream: exit 3, the agent paused with its session, the cost within the budget plus one message', async () => {
    const served = box.server.served;
    const { out, r } = await stoppedAtBudget(sandboxed, wf, 'hard', budget, SKIP);
    const messages = box.server.served - served;
    assert.equal(messages, 4, 'stopped at the message that took the run to the budget');
    stoppedAfter = messages;
    assert.ok(out.total_cost_usd > 0, 'a stopped turn costs its streamed usage, never $0');
    // Its messages as the stream had them (Claude Code prints a message's usage before its final output count), priced by the table.
    const model = box.server.requests.at(-1)!.model;
    const streamed = streamedUsd(model, 4);
    assert.ok(
      Math.abs(out.total_cost_usd - streamed) < 1e-9,
      `${out.total_cost_usd}: 4 messages streamed, ${streamed} (${model})`,
    );
    assert.ok(
      out.total_cost_usd >= budget && out.total_cost_usd <= budget + message + 1e-9,
      `spent ${out.total_cost_usd} for a budget of ${budget} (a message ${message}), ${messages} messages`,
    );
    assert.match(r.stderr, /\[main\] paused: .*START\.md: stopped by --budget-hard/);
    const state = box.state('hard');
    assert.equal(state.status, 'budget_exceeded');
    assert.ok(Math.abs(state.total_cost_usd - out.total_cost_usd) < 1e-9);
    assert.equal(state.options.budget_hard, true, 'kept for a resume');
    const main = state.agents[0]!;
    // The agent goes on in the session the turn ran in (its reserved one), which Claude Code kept on disk.
    assert.equal(main.session, main.next_session, JSON.stringify(main));
    const config = { CLAUDE_CONFIG_DIR: join(box.home, '.claude') };
    assert.ok(findTranscript(main.session, main.cwd, config), 'the session is on disk');
  });

  it('--resume with a larger budget goes on in the stopped session and completes', async () => {
    const before = box.server.requests.length;
    const out = await resumedToEnd(sandboxed, 'hard', 30 * message, SKIP);
    const resumed = box.server.requests.slice(before).filter((q) => q.main);
    // The first request of the resumed turn carries the stopped turn's conversation: its tool calls.
    assert.ok(resumed[0]!.messageCount > 5, `${resumed[0]!.messageCount} messages`);
    assert.ok(resumed.length < full, `${resumed.length} requests: the session went on`);
    // Claude Code's total of the resumed session counts the stopped turn's messages: they are not charged twice.
    const all = stoppedAfter + resumed.length;
    assert.ok(
      Math.abs(out.total_cost_usd - all * message) < 1e-6,
      `${out.total_cost_usd} for ${all} messages of ${message}`,
    );
  });
  it("a branch's budget is held inside its turn: the worker's long turn is stopped at its budget= and fails alone (error budget), its join gets it, the parent completes", async () => {
    const forks = `<fork budget="${budget.toFixed(6)}" n="1">LONG.md</fork><fork n="2">PROBE.md</fork>`;
    const wf = box.write(
      {
        'START.sh': sh(`echo '${forks}<join>END.sh</join>'`),
        'LONG.md': 'HARD-LONG',
        'PROBE.md': 'ONE-MESSAGE probe',
        'END.sh': sh('printf "<result>%s</result>" "$RAYMOND_INPUT"'),
      },
      'branch',
    );
    const served = box.server.served;
    const joined = joinedEntries(await hardRun(wf, 'branch-hard', 100 * message));
    const long = joined.find((j) => j.attributes.n === '1')!;
    assert.equal(long.status, 'failed', JSON.stringify(long));
    assert.match(
      long.error!,
      /budget: stopped by --budget-hard: branch main_\w+'s budget of \$[\d.]+ is spent/,
    );
    // Stopped at the message that took the branch to its budget (the soft line alone let the turn run its 10).
    assert.ok(
      long.cost_usd >= budget && long.cost_usd <= budget + message + 1e-9,
      `the branch spent ${long.cost_usd} for a budget of ${budget} (a message ${message})`,
    );
    assert.equal(joined.find((j) => j.attributes.n === '2')?.status, 'completed');
    assert.equal(box.server.served - served, 4 + 1, "the long turn's 4 messages and the probe's");
    const worker = box.state('branch-hard').agents.find((a) => a.attributes.n === '1')!;
    assert.equal(worker.status, 'failed');
  });

  it('raymond serve: POST /runs with budget_hard: true stops the long turn at the budget and pauses its agent; a budget_hard that is no boolean is a 400', async (t) => {
    const roots = box.write({ 'long/START.md': 'HARD-LONG' }, 'served-roots');
    const server = await startServe(
      ['--root', roots, '--dangerously-skip-permissions'],
      box.dir,
      box.env(SANDBOXED),
    );
    t.after(() => server.stop());
    const served = box.server.served;
    const { id, run } = await startedUntil(
      server.url,
      { workflow_id: 'long', budget: Number(budget.toFixed(6)), budget_hard: true },
      'budget_exceeded',
    );
    assert.equal(box.server.served - served, 4, 'stopped at the message that reached the budget');
    const cost = run.cost_usd as number;
    assert.ok(
      cost >= budget && cost <= budget + message + 1e-9,
      `spent ${cost} for a budget of ${budget} (a message ${message})`,
    );
    const state = readRunState(join(box.dir, '.raymond/serve-state', `${id}.json`));
    assert.equal(state.options.budget_hard, true);
    assert.equal(state.agents[0]!.status, 'paused');
    assert.match(state.agents[0]!.error!, /stopped by --budget-hard/);
    const bad = await api(`${server.url}/runs`, 'POST', { workflow_id: 'long', budget_hard: 1 });
    assert.deepEqual(bad.body, {
      error: 'invalid request body: budget_hard is 1; it must be true or false or null',
      code: 'bad_request',
    });
  });

  it('at width, the message that reaches the budget stops every turn running: each agent paused, and a resume finishes them all', async () => {
    // A history of one-message turns forecasts the state cheap, so all three start under the budget; then they run long.
    let short = true;
    const long = longTurn((r) => `${r.prompt} done`);
    box.server.on(/^HARD-WIDE/, (r) =>
      short ? { text: `<result>${r.prompt} done</result>`, usage: LONG_USAGE } : long(r),
    );
    const forks = [1, 2, 3].map((n) => `<fork n="${n}">WIDE.md</fork>`).join('\n');
    const wide = box.write(
      {
        'START.sh': `#!/usr/bin/env bash\ncat <<'EOF'\n${forks}\n<goto>DONE.sh</goto>\nEOF\n`,
        'WIDE.md': 'HARD-WIDE {{n}}',
        'DONE.sh': '#!/usr/bin/env bash\necho "<result>forked</result>"\n',
      },
      'wide',
    );
    const history = await sandboxed.run([wide, '--json', '--workflow-id', 'wide-history', ...SKIP]);
    assert.equal(history.code, 0, history.stderr.slice(-2000));
    short = false;
    const served = box.server.served;
    const r = await hardRun(wide, 'wide', budget, ['--max-parallel', '3']);
    const out = summary(r);
    const messages = box.server.served - served;
    assert.equal(r.code, 3, r.stderr.slice(-2000));
    assert.equal(out.status, 'budget_exceeded');
    assert.match(out.error!, /is spent: the turns running as it was reached were stopped/);
    const workers = box.state('wide').agents.filter((a) => a.state === 'WIDE.md');
    assert.equal(workers.length, 3);
    for (const w of workers) {
      assert.equal(w.status, 'paused', JSON.stringify(w));
      assert.match(w.error!, /stopped by --budget-hard/);
    }
    // Each turn may have had one message under way when the line was crossed: the API served it, the stream may have told it.
    assert.ok(messages <= 3 * 2, `${messages} messages served`);
    assert.ok(
      out.total_cost_usd >= budget && out.total_cost_usd <= budget + 3 * message + 1e-9,
      `spent ${out.total_cost_usd} for a budget of ${budget} (a message ${message}), ${messages} messages`,
    );
    const resumed = await box.run(
      ['--resume', 'wide', '--json', '--budget', (60 * message).toFixed(6), ...SKIP],
      SANDBOXED,
    );
    assert.equal(resumed.code, 0, resumed.stderr.slice(-2000));
    const done = Object.values(summary(resumed).results).filter((v) =>
      /^HARD-WIDE \d done$/.test(v),
    );
    assert.equal(done.length, 3);
  });
});
