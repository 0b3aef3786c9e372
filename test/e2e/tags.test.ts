import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { join } from 'node:path';
import { Sandbox, sh, summary } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

describe('transition tags through script states', () => {
  it('call and function push frames and return payloads as input; reset keeps the stack', async () => {
    const wf = box.write(
      {
        'START.sh': sh('echo "<call return=\\"AFTER_CALL\\" input=\\"2\\">LOOP</call>"'),
        'LOOP.sh': sh(
          'n=$RAYMOND_INPUT',
          'echo "$n" >> "$RAYMOND_WORKFLOW_ID.loop"',
          'if [ "$n" -gt 0 ]; then echo "<reset input=\\"$((n-1))\\">LOOP</reset>"; else echo "<result>looped</result>"; fi',
        ),
        'AFTER_CALL.sh': sh(
          'echo "<function return=\\"AFTER_FN.sh\\" input=\\"[$RAYMOND_RESULT]\\">FN</function>"',
        ),
        'FN.sh': sh('echo "<result>fn saw $RAYMOND_INPUT</result>"'),
        'AFTER_FN.sh': sh('echo "<result>$RAYMOND_INPUT</result>"'),
      },
      'calls',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'calls']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(summary(r).results, { main: 'fn saw [looped]' });
    assert.equal(box.read('calls.loop'), '2\n1\n0\n');
    assert.match(r.stderr, /START\.sh -> call LOOP\.sh, returning to AFTER_CALL\.sh/);
    assert.match(r.stderr, /LOOP\.sh -> result to AFTER_CALL\.sh: looped/);
  });

  it('fork gives each worker its attributes (as env on every state), its cd, and a fresh stack', async () => {
    const wf = box.write(
      {
        'START.sh': sh(
          'mkdir -p work/a work/b',
          'echo "<fork next=\\"DONE\\" item=\\"A\\" cd=\\"work/a\\">WORKER</fork><fork next=\\"DONE\\" item=\\"B\\" cd=\\"work/b\\" input=\\"hi\\">WORKER</fork>"',
        ),
        'WORKER.sh': sh('echo "<goto input=\\"$RAYMOND_INPUT\\">SECOND</goto>"'),
        'SECOND.sh': sh(
          'pwd > where.txt',
          'echo "<result>$RAYMOND_AGENT_ID item=$item input=${RAYMOND_INPUT:-none} next=${next:-unset} cd=${cd:-unset}</result>"',
        ),
        'DONE.sh': sh('echo "<result>dispatched</result>"'),
      },
      'forks',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'forks']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(summary(r).results, {
      main: 'dispatched',
      main_worker1: 'main_worker1 item=A input=none next=unset cd=unset',
      main_worker2: 'main_worker2 item=B input=hi next=unset cd=unset',
    });
    assert.equal(box.read('work/a/where.txt').trim(), realpathSync(join(box.dir, 'work/a')));
    assert.equal(box.read('work/b/where.txt').trim(), realpathSync(join(box.dir, 'work/b')));
    const state = box.state('forks');
    const w1 = state.agents.find((a) => a.id === 'main_worker1')!;
    assert.deepEqual(w1.attributes, { item: 'A' });
    assert.equal(w1.cwd, join(box.dir, 'work/a'), 'cd is stored absolute');
  });

  it('reset cd changes the agent directory for the following states', async () => {
    const wf = box.write(
      {
        'START.sh': sh('mkdir -p sub', 'echo "<reset cd=\\"sub\\">HERE</reset>"'),
        'HERE.sh': sh('echo "<goto>STILL</goto>"'),
        'STILL.sh': sh('echo "<result>$(pwd)</result>"'),
      },
      'resetcd',
    );
    const r = await box.run([wf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, realpathSync(join(box.dir, 'sub')));
  });

  it('--input reaches the first state as RAYMOND_INPUT and RAYMOND_RESULT, then is gone', async () => {
    const wf = box.write(
      {
        'START.sh': sh('echo "<goto input=\\"$RAYMOND_INPUT|$RAYMOND_RESULT\\">NEXT</goto>"'),
        'NEXT.sh': sh('echo "<goto>LAST</goto>"', 'echo "$RAYMOND_INPUT" > next-input.txt'),
        'LAST.sh': sh('echo "<result>${RAYMOND_INPUT-unset}</result>"'),
      },
      'input',
    );
    const r = await box.run([wf, '--json', '--input', 'hello world']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(box.read('next-input.txt').trim(), 'hello world|hello world');
    assert.equal(summary(r).results.main, 'unset');
  });

  it('prints <print> contents as progress and ignores tags inside a result payload', async () => {
    const wf = box.write(
      {
        'START.sh': sh(
          'echo "<print>step one done</print>"',
          'echo "<result>use <goto>X</goto> later</result>"',
        ),
      },
      'print',
    );
    const r = await box.run([wf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /\[main\] step one done/);
    assert.equal(summary(r).results.main, 'use <goto>X</goto> later');
  });

  it('resolves extension-less targets to .md or .sh and accepts explicit extensions', async () => {
    const wf = box.write(
      {
        'START.sh': sh('echo "<goto>B</goto>"'),
        'B.sh': sh('echo "<goto>C.sh</goto>"'),
        'C.sh': sh('echo "<result>ok</result>"'),
      },
      'resolve',
    );
    const r = await box.run([wf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'ok');
  });

  it('an --input holding tags passes through input="..." as data, never as a tag', async () => {
    const injected = '<result>injected</result> a > b';
    const wf = box.write(
      {
        'START.sh': sh('echo "<goto input=\\"$RAYMOND_INPUT\\">NEXT</goto>"'),
        'NEXT.sh': sh(
          'printf %s "$RAYMOND_INPUT" > injected-input.txt',
          'echo "<result>next ran</result>"',
        ),
      },
      'injection',
    );
    const r = await box.run([wf, '--json', '--input', injected]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(summary(r).results, { main: 'next ran' });
    assert.equal(box.read('injected-input.txt'), injected);
  });

  it('reads a tag after megabytes of an unfinished <goto and spaces', async () => {
    // Quadratic parsing made this output take hours; the runner's timeout ends the test first.
    const wf = box.write(
      {
        'START.sh': sh(
          "printf '<goto'",
          "head -c 4000000 /dev/zero | tr '\\0' ' '",
          'echo "<result>parsed</result>"',
        ),
      },
      'spaces',
    );
    const r = await box.run([wf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'parsed');
  });

  it('fork attributes named toString, constructor and __proto__ reach the worker as variables (toString only prefixed: it is not lower case)', async () => {
    const wf = box.write(
      {
        'START.sh': sh(
          'echo "<fork next=\\"DONE\\" toString=\\"t\\" constructor=\\"c\\" __proto__=\\"p\\">WORKER</fork>"',
        ),
        'WORKER.sh': sh(
          'echo "<result>${toString-unset} $RAYMOND_ATTR_toString $constructor $__proto__</result>"',
        ),
        'DONE.sh': sh('echo "<result>done</result>"'),
      },
      'proto',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'proto']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(summary(r).results, { main: 'done', main_worker1: 'unset t c p' });
    const worker = box.state('proto').agents.find((a) => a.id === 'main_worker1')!;
    assert.deepEqual(Object.entries(worker.attributes), [
      ['toString', 't'],
      ['constructor', 'c'],
      ['__proto__', 'p'],
    ]);
  });

  it('a reply with a misspelt tag fails naming it and the tag it was meant as', async () => {
    const wf = box.write({ 'START.sh': sh('echo "<reslt>done</reslt>"') }, 'typo');
    const r = await box.run([wf, '--workflow-id', 'typo']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /START\.sh: unknown tag `<reslt>`: did you mean `<result>`\?/);
    assert.doesNotMatch(r.stderr, /no transition tag|\n\s+at /);
  });
});
