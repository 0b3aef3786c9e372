import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import { CLI, Sandbox, readRunState, sh, summary, type CliResult } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

interface Asking {
  status: string;
  run_id: string;
  workflow: string;
  asking: { ask_id: string; agent_id: string; prompt: string };
  pending_count: number;
  resume: string;
  asks?: Array<{
    ask_id: string;
    agent_id: string;
    prompt: string;
    created_at: string;
    timeout_at: string | null;
  }>;
}

/** The one JSON object a run that stops to ask prints on stdout, as a skill's caller reads it. */
function asking(r: CliResult): Asking {
  assert.equal(r.code, 2, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 1, r.stdout);
  return JSON.parse(lines[0]!) as Asking;
}

/** A state that asks, then one the answer goes to, which shows the answer and its ask id. */
const approval = {
  'START.sh': sh('echo "thinking about it"', 'echo "<ask next=\\"DO\\">Approve the plan?</ask>"'),
  'DO.sh': sh(
    'echo "$RAYMOND_INPUT" >> "$RAYMOND_WORKFLOW_ID.answers"',
    'echo "<result>got $RAYMOND_INPUT for $RAYMOND_ASK_ID</result>"',
  ),
};

describe('<ask> with --on-ask=pause (script states)', () => {
  it("stops with exit 2 and ray's JSON; --resume --input answers it, once", async () => {
    const wf = box.write(approval, 'pause');
    const first = asking(await box.run([wf, '--on-ask=pause', '--workflow-id', 'ask1']));
    assert.deepEqual(Object.keys(first), [
      'status',
      'run_id',
      'workflow',
      'asking',
      'pending_count',
      'resume',
    ]);
    assert.equal(first.status, 'asking');
    assert.equal(first.run_id, 'ask1');
    assert.equal(first.workflow, 'pause');
    assert.equal(first.asking.agent_id, 'main');
    assert.equal(
      first.asking.prompt,
      'Approve the plan?',
      'the question is the tag body, not what came before',
    );
    assert.match(first.asking.ask_id, /^ask_main_\d+$/);
    assert.equal(first.pending_count, 0);
    assert.equal(first.resume, 'raymond --resume ask1 --input "[your response]"');
    // Durable: the ask is in the state file, with its id, question and time.
    const stored = box.state('ask1');
    assert.equal(stored.status, 'asking');
    assert.deepEqual(
      stored.agents[0]!.ask && {
        id: stored.agents[0]!.ask.id,
        prompt: stored.agents[0]!.ask.prompt,
        next: stored.agents[0]!.ask.next,
      },
      { id: first.asking.ask_id, prompt: 'Approve the plan?', next: 'DO.sh' },
    );
    const status = await box.run(['--status', 'ask1']);
    assert.match(
      status.stdout,
      new RegExp(`^  ${first.asking.ask_id}  main  asked .*: Approve the plan\\?$`, 'm'),
    );
    assert.match((await box.run(['--list'])).stdout, /^ask1 {2}asking {2}1 live {2}1 asking /m);

    const done = await box.run(['--resume', 'ask1', '--input', 'yes, go', '--json']);
    assert.equal(done.code, 0, done.stderr);
    assert.equal(summary(done).results.main, `got yes, go for ${first.asking.ask_id}`);
    assert.equal(box.read('ask1.answers'), 'yes, go\n');
    const again = await box.run(['--resume', 'ask1', '--input', 'twice']);
    assert.equal(again.code, 64, again.stderr);
    assert.equal(box.read('ask1.answers'), 'yes, go\n', 'an answer is applied once');
  });

  it("with --json the object also has Raymond's fields and every pending ask; two agents asking are answered one by one, --answer by id", async () => {
    const wf = box.write(
      {
        'START.sh': sh('echo "<fork next=\\"Q\\">W</fork>"'),
        // The worker asks only once main has (a marker Q.sh leaves), whatever the machine's load.
        'W.sh': sh(
          'for _ in $(seq 100); do [ -e "$RAYMOND_WORKFLOW_ID.main-asked" ] && break; sleep 0.1; done',
          'sleep 0.2',
          'echo "<ask next=\\"DONE\\">worker question</ask>"',
        ),
        'Q.sh': sh(
          'touch "$RAYMOND_WORKFLOW_ID.main-asked"',
          'echo "<ask next=\\"DONE\\">main question</ask>"',
        ),
        'DONE.sh': sh('echo "<result>$RAYMOND_AGENT_ID: $RAYMOND_INPUT</result>"'),
      },
      'two',
    );
    const first = asking(await box.run([wf, '--on-ask=pause', '--workflow-id', 'ask2', '--json']));
    assert.equal(first.pending_count, 1);
    assert.equal(first.asking.agent_id, 'main', 'the oldest ask first');
    assert.deepEqual(
      first.asks!.map((a) => [a.agent_id, a.prompt]),
      [
        ['main', 'main question'],
        ['main_w1', 'worker question'],
      ],
    );
    assert.equal((first as unknown as { workflow_id: string }).workflow_id, 'ask2');
    const worker = first.asks![1]!.ask_id;
    const second = asking(
      await box.run(['--resume', 'ask2', '--answer', `${worker}=for the worker`]),
    );
    assert.equal(second.asking.agent_id, 'main', 'the other ask is still pending');
    assert.equal(second.pending_count, 0);
    const bad = await box.run(['--resume', 'ask2', '--answer', 'ask_nobody_1=x']);
    assert.equal(bad.code, 64);
    assert.match(bad.stderr, /no pending ask ask_nobody_1 \(pending: ask_main_\d+ \(main\)\)/);
    const done = await box.run(['--resume', 'ask2', '--input', 'for main', '--json']);
    assert.equal(done.code, 0, done.stderr);
    assert.deepEqual(summary(done).results, {
      main: 'main: for main',
      main_w1: 'main_w1: for the worker',
    });
  });

  it('an ask whose time ran out takes timeout_next; one without timeout_next fails the agent', async () => {
    const wf = box.write(
      {
        'START.sh': sh(
          'echo "<ask next=\\"DO\\" timeout=\\"1s\\" timeout_next=\\"LATE\\">quick?</ask>"',
        ),
        'DO.sh': sh('echo "<result>answered</result>"'),
        'LATE.sh': sh('echo "<result>too late: [$RAYMOND_INPUT] $RAYMOND_ASK_ID</result>"'),
      },
      'timeout',
    );
    const first = asking(await box.run([wf, '--on-ask=pause', '--workflow-id', 'ask3']));
    assert.ok(box.state('ask3').agents[0]!.ask!.timeout_at, 'the expiry time is stored');
    await sleep(1200);
    const late = await box.run(['--resume', 'ask3', '--input', 'now?', '--json']);
    assert.equal(late.code, 0, late.stderr);
    assert.equal(summary(late).results.main, `too late: [] ${first.asking.ask_id}`);
    assert.match(late.stderr, /ran out of time .*the answer is not used/);

    const strict = box.write(
      { 'START.sh': sh('echo "<ask next=\\"START\\" timeout=\\"1s\\">quick?</ask>"') },
      'strict',
    );
    asking(await box.run([strict, '--on-ask=pause', '--workflow-id', 'ask4']));
    await sleep(1200);
    const failed = await box.run(['--resume', 'ask4']);
    assert.equal(failed.code, 1, failed.stderr);
    assert.match(failed.stderr, /got no answer by .* and has no timeout_next/);
  });

  it('asks from inside a called workflow, and after the answer the callee still returns to its caller', async () => {
    box.write(
      {
        'START.sh': sh('echo "<ask next=\\"DONE\\">callee asks</ask>"'),
        'DONE.sh': sh('echo "<result>callee got $RAYMOND_INPUT</result>"'),
      },
      'nested/lib',
    );
    const wf = box.write(
      {
        'START.sh': sh('echo "<call-workflow return=\\"END\\">../lib</call-workflow>"'),
        'END.sh': sh('echo "<result>caller: $RAYMOND_INPUT</result>"'),
      },
      'nested/main',
    );
    const first = asking(await box.run([wf, '--on-ask=pause', '--workflow-id', 'ask8']));
    assert.equal(first.asking.prompt, 'callee asks');
    const done = await box.run(['--resume', 'ask8', '--input', 'ok', '--json']);
    assert.equal(done.code, 0, done.stderr);
    assert.equal(summary(done).results.main, 'caller: callee got ok');
  });

  it('a run that waits on another agent keeps its ask through kill -9; the answer is applied once', async () => {
    const wf = box.write(
      {
        'START.sh': sh('echo "<fork next=\\"ASK\\">SLOW</fork>"'),
        'SLOW.sh': sh('sleep 30', 'echo "<result>slow</result>"'),
        'ASK.sh': sh('echo "<ask next=\\"DO\\">go?</ask>"'),
        'DO.sh': approval['DO.sh'],
      },
      'killed',
    );
    const stateFile = join(box.dir, '.raymond/state/ask5.json');
    const child = execa(process.execPath, [CLI, wf, '--on-ask=pause', '--workflow-id', 'ask5'], {
      cwd: box.dir,
      reject: false,
      stdin: 'ignore',
    });
    for (
      let i = 0;
      i < 100 && !(existsSync(stateFile) && readRunState(stateFile).agents.some((a) => a.ask));
      i++
    )
      await sleep(100);
    child.kill('SIGKILL');
    await child;
    const stored = readRunState(stateFile).agents.find((a) => a.id === 'main')!;
    assert.ok(stored.ask, 'the ask was on disk before the kill');
    writeFileSync(join(wf, 'SLOW.sh'), sh('echo "<result>slow, resumed</result>"'));
    const done = await box.run(['--resume', 'ask5', '--input', 'go', '--allow-changes', '--json']);
    assert.equal(done.code, 0, done.stderr);
    assert.deepEqual(summary(done).results, {
      main: `got go for ${stored.ask.id}`,
      main_slow1: 'slow, resumed',
    });
    assert.equal(readFileSync(join(box.dir, 'ask5.answers'), 'utf8'), 'go\n');
  });
});

describe('<ask> without anyone to answer (--on-ask=reject, the default without a terminal)', () => {
  it('refuses a workflow that can ask before anything runs, in one line naming --on-ask=pause', async () => {
    const wf = box.write(approval, 'reject');
    const r = await box.run([wf, '--workflow-id', 'ask6']);
    assert.equal(r.code, 64);
    assert.match(
      r.stderr,
      /^raymond: .*reject: START\.sh can ask a question \(<ask>\), and nobody can answer here \(--on-ask=reject.*--on-ask=pause/,
    );
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.ok(!existsSync(join(box.dir, '.raymond/state/ask6.json')));
  });

  it('pauses an agent that asks anyway (a tag lint cannot see)', async () => {
    const wf = box.write(
      { 'START.sh': sh('t=ask', 'echo "<$t next=\\"START\\">hidden?</$t>"') },
      'hidden',
    );
    const r = await box.run([wf, '--workflow-id', 'ask7']);
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stderr, /paused: .*asked a question \(<ask>\), and this run takes no answers/);
  });

  it('bad tags: no next, cd, a bad duration, timeout_next without timeout', async () => {
    for (const [tag, why] of [
      ['<ask>x</ask>', /<ask> needs a next="STATE"/],
      ['<ask next="A" cd="/tmp">x</ask>', /<ask> cannot have cd="\/tmp"/],
      ['<ask next="A" timeout="soon">x</ask>', /<ask> timeout="soon" is not a duration/],
      ['<ask next="A" timeout_next="B">x</ask>', /has timeout_next="B" but no timeout/],
    ] as const) {
      const wf = box.write(
        {
          'START.sh': sh(`echo '${tag}'`),
          'A.sh': sh('echo "<result>a</result>"'),
          'B.sh': sh('echo "<result>b</result>"'),
        },
        `bad-${tag.length}`,
      );
      const r = await box.run([wf, '--on-ask=pause']);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, why);
    }
  });
});

describe('<ask> with a timeout no date can hold', () => {
  it('fails the agent in one line naming the state file, again on --resume; lint reports it', async () => {
    const wf = box.write(
      {
        'START.sh': sh(`echo '<ask next="A" timeout="300000000d">x</ask>'`),
        'A.sh': sh('echo "<result>a</result>"'),
      },
      'huge-timeout',
    );
    const expected = `raymond: ${join(wf, 'START.sh')}: <ask> timeout="300000000d" is too long: at most 36500d (100 years)`;
    const r = await box.run([wf, '--on-ask=pause', '--workflow-id', 'huge-timeout']);
    assert.equal(r.code, 1, r.stderr);
    assert.ok(r.stderr.split('\n').includes(expected), r.stderr);
    assert.doesNotMatch(r.stderr, /Invalid time value/);
    const again = await box.run(['--resume', 'huge-timeout', '--on-ask=pause']);
    assert.equal(again.code, 1, again.stderr);
    assert.ok(again.stderr.split('\n').includes(expected), again.stderr);
    assert.doesNotMatch(again.stderr, /Invalid time value/);

    const md = box.write(
      {
        'START.md': 'Ask <ask next="A" timeout="300000000d">x</ask>',
        'A.sh': sh('echo "<result>a</result>"'),
      },
      'huge-timeout-md',
    );
    const lint = await box.run(['lint', md]);
    assert.equal(lint.code, 1, lint.stdout);
    assert.ok(
      lint.stdout.includes(`START.md: error malformed-tag: <ask> timeout="300000000d" is too long`),
      lint.stdout,
    );
  });
});

describe('<ask> at a terminal (--on-ask=prompt, the default there)', () => {
  it('asks on the terminal while a forked worker goes on, and the typed answer continues the run', async () => {
    const wf = box.write(
      {
        'START.sh': sh('echo "<fork next=\\"ASK\\">W</fork>"'),
        'W.sh': sh('sleep 1', 'echo "<result>worker done</result>"'),
        'ASK.sh': sh('echo "<ask next=\\"DO\\">Proceed with the deploy?</ask>"'),
        'DO.sh': sh('echo "<result>main got $RAYMOND_INPUT</result>"'),
      },
      'pty',
    );
    // `script` gives the CLI a pseudo-terminal, as a user's shell would, and passes our stdin to it.
    const child = execa(
      'script',
      [
        '-qfec',
        `stty cols 120 rows 30; ${process.execPath} ${CLI} ${wf} --workflow-id askpty --json`,
        '/dev/null',
      ],
      { cwd: box.dir, reject: false },
    );
    let out = '';
    let typed = false;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (!typed && out.includes('answer> ')) {
        typed = true;
        // Typed once the worker has had time to finish under the open question.
        setTimeout(() => child.stdin.write('yes please\r'), 1500);
      }
    });
    const r = await child;
    assert.equal(r.exitCode, 0, out);
    const text = out.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
    assert.match(text, /\[main\] asks \(ask_main_\d+\):\r?\nProceed with the deploy\?/);
    const question = text.indexOf('Proceed with the deploy?');
    const worker = text.indexOf('[main_w1] W.sh -> result: worker done');
    assert.ok(worker > question, 'the worker finished while the question was open');
    assert.match(text, /raymond: answered ask_main_\d+ \(main\)/);
    assert.deepEqual(box.state('askpty').results, {
      main_w1: 'worker done',
      main: 'main got yes please',
    });
  });

  it('Ctrl-C at the question interrupts the run as anywhere else (exit 130), and the ask stays pending for a resume', async () => {
    const wf = box.write(approval, 'ctrlc');
    const child = execa(
      'script',
      ['-qfec', `${process.execPath} ${CLI} ${wf} --workflow-id askint`, '/dev/null'],
      { cwd: box.dir, reject: false },
    );
    let out = '';
    let sent = false;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (!sent && out.includes('answer> ')) {
        sent = true;
        child.stdin.write('\x03');
      }
    });
    const r = await child;
    assert.equal(r.exitCode, 130, out);
    assert.equal(box.state('askint').agents[0]!.ask?.prompt, 'Approve the plan?');
    const done = await box.run(['--resume', 'askint', '--input', 'later', '--json']);
    assert.equal(done.code, 0, done.stderr);
  });
});
