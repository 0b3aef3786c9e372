import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import type { JoinEntry } from '../../machines/types.js';
import { CLI, Sandbox, readRunState, sh, summary } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

const entries = (text: string | undefined) => JSON.parse(text ?? 'null') as JoinEntry[];
/** The join state: its result is the input it got, exactly. */
const COLLECT = sh('printf "<result>%s</result>" "$RAYMOND_INPUT"');

describe('<join> through the built CLI', () => {
  it('gathers results in fork order, a failed worker included, and the run completes', async () => {
    const wf = box.write(
      {
        'START.sh': sh(
          'for i in 3 1 2; do echo "<fork item=\\"$i\\">W.sh</fork>"; done',
          'echo "<join>COLLECT.sh</join>"',
        ),
        // The first forked (item 3) ends last; item 2 fails.
        'W.sh': sh(
          'sleep 0.$((item * 2))',
          '[ "$item" = 2 ] && { echo "no luck" >&2; exit 4; }',
          'echo "<result>item $item</result>"',
        ),
        'COLLECT.sh': COLLECT,
      },
      'order',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'order']);
    assert.equal(r.code, 0, r.stderr);
    const s = summary(r);
    assert.equal(s.status, 'completed');
    const got = entries(s.results.main);
    assert.deepEqual(
      got.map((e) => [e.agent, e.attributes.item, e.status]),
      [
        ['main_w1', '3', 'completed'],
        ['main_w2', '1', 'completed'],
        ['main_w3', '2', 'failed'],
      ],
    );
    assert.equal(got[0]!.result, 'item 3');
    assert.match(got[2]!.error!, /W\.sh: exited with code 4; stderr: no luck/);
    assert.equal(got[2]!.result, undefined);
    assert.match(r.stderr, /warning: \[main_w3\] failed in W\.sh: .*\(the other agents go on\)/);
    assert.match(r.stderr, /\[main\] joined 3 worker\(s\); continues at COLLECT\.sh/);
    const state = box.state('order');
    assert.equal(state.agents.find((a) => a.id === 'main_w3')!.joined, true);
  });

  it('without a join, a failed worker ends alone; the run fails at the end, exit 1, with every other result', async () => {
    const wf = box.write(
      {
        'START.sh': sh(
          'for i in 1 2 3; do echo "<fork item=\\"$i\\" next=\\"END.sh\\">W.sh</fork>"; done',
        ),
        'W.sh': sh('[ "$item" = 1 ] && exit 3', 'sleep 0.5', 'echo "<result>item $item</result>"'),
        'END.sh': sh('echo "<result>end</result>"'),
      },
      'nojoin',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'nojoin']);
    assert.equal(r.code, 1);
    const s = summary(r);
    assert.equal(s.status, 'failed');
    assert.match(s.error!, /^1 worker\(s\) failed and no <join> received the failure: main_w1: /);
    assert.deepEqual(Object.keys(s.results).sort(), ['main', 'main_w2', 'main_w3']);
  });

  it('forks over several steps, then two joins: the second gets only the workers forked since the first', async () => {
    const wf = box.write(
      {
        'START.sh': sh('echo "<fork item=\\"a\\" next=\\"MORE.sh\\">W.sh</fork>"'),
        'MORE.sh': sh(
          'echo "<fork item=\\"b\\">W.sh</fork><fork-workflow item=\\"c\\">../other</fork-workflow><join>J1.sh</join>"',
        ),
        'J1.sh': sh(
          'echo "$RAYMOND_INPUT" > j1.json',
          'echo "<fork item=\\"d\\">W.sh</fork><join>J2.sh</join>"',
        ),
        'J2.sh': COLLECT,
        'W.sh': sh('echo "<result>$item</result>"'),
      },
      'two',
    );
    box.write({ 'START.sh': sh('echo "<result>other $item</result>"') }, 'other');
    const r = await box.run([wf, '--json', '--workflow-id', 'two'], undefined);
    assert.equal(r.code, 0, r.stderr);
    const first = entries(box.read('j1.json'));
    assert.deepEqual(
      first.map((e) => e.result),
      ['a', 'b', 'other c'],
    );
    assert.deepEqual(
      entries(summary(r).results.main).map((e) => e.result),
      ['d'],
    );
  });

  it('a join with no workers goes on at once with []', async () => {
    const wf = box.write(
      { 'START.sh': sh('echo "<join>COLLECT.sh</join>"'), 'COLLECT.sh': COLLECT },
      'empty',
    );
    const r = await box.run([wf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, '[]');
  });

  it('joins inside a called workflow, and the callee returns what it joined', async () => {
    const wf = box.write(
      {
        'START.sh': sh('echo "<call-workflow return=\\"BACK.sh\\">../fanout</call-workflow>"'),
        'BACK.sh': sh('echo "<result>caller got: $RAYMOND_INPUT</result>"'),
      },
      'caller',
    );
    box.write(
      {
        'START.sh': sh(
          'echo "<fork n=\\"1\\">W.sh</fork><fork n=\\"2\\">W.sh</fork><join>SUM.sh</join>"',
        ),
        'W.sh': sh('echo "<result>$((n * 10))</result>"'),
        'SUM.sh': sh(
          'total=$(printf "%s" "$RAYMOND_INPUT" | grep -o \'"result":"[0-9]*"\' | grep -o "[0-9]*" | paste -sd+ | bc)',
          'echo "<result>$total</result>"',
        ),
      },
      'fanout',
    );
    const r = await box.run([wf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'caller got: 30');
  });

  it('shows a waiting parent as awaiting-child in --status, and survives SIGKILL with workers running and queued: the join state runs once', async () => {
    const log = join(box.dir, 'kill-log');
    const wf = box.write(
      {
        'START.sh': sh(
          'for i in 1 2 3 4 5 6; do echo "<fork item=\\"$i\\">W.sh</fork>"; done',
          'echo "<join>COLLECT.sh</join>"',
        ),
        'W.sh': sh(`echo "start $item" >> ${log}`, 'sleep 3', 'echo "<result>item $item</result>"'),
        'COLLECT.sh': sh(
          `echo "collect" >> ${log}`,
          'printf "<result>%s</result>" "$RAYMOND_INPUT"',
        ),
      },
      'kill',
    );
    const child = execa(
      process.execPath,
      [CLI, wf, '--workflow-id', 'kill', '--max-parallel', '2', '--quiet'],
      { cwd: box.dir, reject: false, stdin: 'ignore' },
    );
    // Two workers running, four queued.
    for (
      let i = 0;
      i < 100 &&
      !(existsSync(log) && readFileSync(log, 'utf8').split('\n').filter(Boolean).length >= 2);
      i++
    )
      await sleep(50);
    const status = await box.run(['--status', 'kill']);
    assert.match(
      status.stdout,
      /main {2}awaiting-child \(waits for [456] of 6 workers\) {2}COLLECT\.sh/,
    );
    child.kill('SIGKILL');
    await child;
    const stateFile = join(box.dir, '.raymond/state/kill.json');
    assert.equal(readRunState(stateFile).agents.find((a) => a.id === 'main')!.joining, true);
    const r = await box.run(['--resume', 'kill', '--json', '--max-parallel', '3']);
    assert.equal(r.code, 0, r.stderr);
    const got = entries(summary(r).results.main);
    assert.deepEqual(
      got.map((e) => e.result),
      ['item 1', 'item 2', 'item 3', 'item 4', 'item 5', 'item 6'],
    );
    const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    assert.equal(lines.filter((l) => l === 'collect').length, 1, 'the join state ran exactly once');
  });

  it('lint warns about forks no join gathers in a workflow that joins elsewhere, and the diagram draws the join edge', async () => {
    const wf = box.write(
      {
        'START.md': 'Fork: <fork next="MID.md" item="x">W.md</fork>',
        'MID.md': 'More: <fork item="y">W.md</fork><goto>END.md</goto>',
        'END.md': 'Done: <join>SUM.md</join>',
        'LOST.md': 'Lost: <fork item="z">W.md</fork><goto>LOST2.md</goto>',
        'LOST2.md': '<result>lost</result>',
        'SUM.md': 'Sum {{input}} <result>x</result> <goto>LOST.md</goto>',
        'W.md': '<result>w</result>',
      },
      'lintjoin',
    );
    const r = await box.run(['lint', wf]);
    assert.match(
      r.stdout,
      /LOST\.md: warning unjoined-fork: <fork>W\.md<\/fork> makes workers that no <join> gathers/,
    );
    assert.doesNotMatch(r.stdout, /(START|MID)\.md: warning unjoined-fork/);
    const d = await box.run(['diagram', wf]);
    assert.match(d.stdout, /END_md -->\|join\| SUM_md/);
  });
});
