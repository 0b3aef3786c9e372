import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { CLI, sh } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';

/*
 * The cost gate (--confirm-over) and --max-agents through the built CLI,
 * with the real `claude` and the scripted Messages API. A markdown state
 * forks 50 workers; a worker is a script that can go on to a markdown
 * state (so each is forecast at a markdown step's guess, about $0.17 at
 * p90, $8.6 for the 50), but here ends at once: the fork is cheap to run.
 */

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

const WORKERS = 50;
const forks = Array.from({ length: WORKERS }, (_, i) => `<fork item="${i + 1}">W.sh</fork>`);
box.server.on('FAN-MAIN', { text: `${forks.join('\n')}\n<join>END.sh</join>` });

/** The workflow: START.md forks the workers, END.sh reports how many it joined. */
function fanOut(name: string): string {
  return box.write(
    {
      'START.md':
        'FAN-MAIN: start one worker per item with <fork item="N">W.sh</fork>, then <join>END.sh</join>.',
      'W.sh': sh(
        'if [ -f "$RAYMOND_TASK_FOLDER/deep" ]; then echo "<goto>DEEP.md</goto>"; else echo "<result>w $RAYMOND_ATTR_item</result>"; fi',
      ),
      'DEEP.md': 'FAN-DEEP: think hard, then <result>deep</result>',
      'END.sh': sh(
        'echo "<result>joined $(echo "$RAYMOND_INPUT" | grep -o \'"agent"\' | wc -l)</result>"',
      ),
    },
    name,
  );
}

/** Runs the CLI at a pseudo-terminal (`script`), typing `answer` at the first `answer> ` prompt. */
async function atTerminal(args: string[], answer: string): Promise<{ code: number; out: string }> {
  const child = execa(
    'script',
    ['-qfec', `stty cols 200 rows 40; ${process.execPath} ${CLI} ${args.join(' ')}`, '/dev/null'],
    { cwd: box.dir, reject: false, env: box.env() },
  );
  let out = '';
  let typed = false;
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (!typed && out.includes('answer> ')) {
      typed = true;
      child.stdin.write(`${answer}\r`);
    }
  });
  const r = await child;
  return { code: r.exitCode ?? -1, out: out.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '') };
}

const mainRequests = () => box.server.requestsFor('FAN-MAIN').length;

describe('the cost gate before a 50-worker fork (real claude, scripted API)', () => {
  it('at a terminal: asks, and "yes" starts the 50 workers and completes', async () => {
    const wf = fanOut('gate-yes');
    const before = mainRequests();
    const r = await atTerminal([wf, '--workflow-id', 'gate-yes', '--confirm-over', '1'], 'yes');
    assert.equal(r.code, 0, r.out);
    assert.match(
      r.out,
      /\[main\] asks \(ask_main_\d+\):\r?\nCost gate: START\.md forks 50 worker\(s\) forecast at \$8\.\d\d together \(p90\); with \$0\.0\d+ spent, that passes --confirm-over \$1\.00\. Go on\? Answer yes \(go on\), stop, or a new amount such as 10 or \$10\./,
    );
    const state = box.state('gate-yes');
    assert.equal(state.status, 'completed');
    assert.equal(state.results.main, `joined ${WORKERS}`);
    assert.equal(Object.keys(state.results).length, WORKERS + 1);
    assert.equal(state.results.main_w50, 'w 50');
    assert.equal(state.options.confirm_over_usd, undefined, '"yes" lifts the gate');
    assert.equal(mainRequests() - before, 1, 'the forking step ran once');
  });

  it('at a terminal: "stop" pauses the run with no worker started, resumable', async () => {
    const wf = fanOut('gate-stop');
    const r = await atTerminal([wf, '--workflow-id', 'gate-stop', '--confirm-over', '1'], 'stop');
    assert.equal(r.code, 4, r.out);
    assert.match(
      r.out,
      /the cost gate stopped the run at START\.md: 50 worker\(s\) forecast at \$8\.\d\d \(p90\) with \$0\.0\d+ spent would pass --confirm-over \$1\.00; answered "stop"/,
    );
    const state = box.state('gate-stop');
    assert.equal(state.status, 'paused');
    assert.equal(state.agents.length, 1, 'no worker was started');
    assert.equal(state.agents[0]!.ask?.gate?.workers, WORKERS);
    assert.equal(state.options.confirm_over_usd, 1);
  });

  it('--on-ask=pause: exit 2 with the gate in JSON; --resume --answer goes on without running the step again', async () => {
    const wf = fanOut('gate-pause');
    const before = mainRequests();
    const r = await box.run([
      wf,
      '--workflow-id',
      'gate-pause',
      '--confirm-over',
      '1',
      '--on-ask=pause',
    ]);
    assert.equal(r.code, 2, r.stderr);
    const report = JSON.parse(r.stdout) as {
      asking: { ask_id: string; agent_id: string; gate?: Record<string, unknown> };
    };
    const ask = report.asking;
    assert.equal(ask.agent_id, 'main');
    assert.deepEqual(
      [ask.gate?.kind, ask.gate?.state, ask.gate?.workers, ask.gate?.amount_usd],
      ['fork', 'START.md', WORKERS, 1],
    );
    assert.ok(Number(ask.gate?.forecast_usd) > 8, JSON.stringify(ask.gate));
    assert.equal(box.state('gate-pause').status, 'asking');

    assert.match(
      r.stderr,
      /\[main\] START\.md -> cost gate ask_main_\d+: 50 worker\(s\) forecast at \$8\.\d\d \(p90\) would pass --confirm-over \$1\.00/,
    );
    const again = await box.run(['--resume', 'gate-pause', '--answer', `${ask.ask_id}=yes`]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(
      again.stderr,
      /agents 51 done, 0 failed; cost/,
      'the summary counts the 50 workers and main',
    );
    const state = box.state('gate-pause');
    assert.equal(state.results.main, `joined ${WORKERS}`);
    assert.equal(Object.keys(state.results).length, WORKERS + 1);
    assert.equal(mainRequests() - before, 1, 'the scripted API got no second request for START.md');
  });

  it('with no terminal and no --on-ask: stops with one line naming the state, the forecast and the amount', async () => {
    const wf = fanOut('gate-none');
    const r = await box.run([wf, '--workflow-id', 'gate-none', '--confirm-over', '1']);
    assert.equal(r.code, 4, r.stderr);
    const lines = r.stderr.split('\n').filter((l) => l.includes('cost gate stopped'));
    assert.equal(lines.length, 1, r.stderr);
    assert.match(
      lines[0]!,
      /START\.md: 50 worker\(s\) forecast at \$8\.\d\d \(p90\) with \$0\.0\d+ spent would pass --confirm-over \$1\.00; nobody is here to answer .*--resume gate-none --answer ask_main_\d+=yes/,
    );
    const state = box.state('gate-none');
    assert.equal(state.status, 'paused');
    assert.equal(state.agents.length, 1);
    // A raised amount given to the resume lets the kept fork go.
    const again = await box.run(['--resume', 'gate-none', '--confirm-over', '20']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(box.state('gate-none').results.main, `joined ${WORKERS}`);
    assert.equal(box.state('gate-none').options.confirm_over_usd, 20);
  });
});

describe('--max-agents (real claude, scripted API)', () => {
  it('refuses the 50-worker fork: exit 1, one line naming the state and the numbers, the run failed', async () => {
    const wf = fanOut('maxagents');
    const r = await box.run([wf, '--workflow-id', 'maxagents', '--max-agents', '10']);
    assert.equal(r.code, 1, r.stderr);
    const lines = r.stderr.split('\n').filter((l) => l.includes('--max-agents'));
    assert.ok(lines.length >= 1, r.stderr);
    assert.match(
      lines[0]!,
      /START\.md: <fork> of 50 worker\(s\) would make 51 live agents \(1 now\), past --max-agents 10; no worker was started/,
    );
    const state = box.state('maxagents');
    assert.equal(state.status, 'failed');
    assert.equal(state.agents.length, 1);
    assert.equal(state.agents[0]!.status, 'failed');
    assert.equal(state.options.max_agents, 10);
  });

  it('refuses a bad value with one line', async () => {
    const r = await box.run([fanOut('maxbad'), '--max-agents', '0']);
    assert.equal(r.code, 64, r.stderr);
    assert.match(r.stderr, /--max-agents.*expected a whole number, 1 or more/);
    const c = await box.run([fanOut('confirmbad'), '--confirm-over', 'lots']);
    assert.equal(c.code, 64, c.stderr);
    assert.match(c.stderr, /--confirm-over.*expected an amount in USD, more than 0/);
  });
});
