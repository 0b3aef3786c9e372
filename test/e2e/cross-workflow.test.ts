import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Sandbox, raymond, sh, summary } from '../helpers/cli.js';
import { makeZip } from '../helpers/make-zip.js';

const box = new Sandbox();
after(() => box.remove());

/** A callee workflow: START passes its input on to SECOND, which answers with it, its agent id and its directory. */
const other = {
  'START.sh': sh('echo "<goto input=\\"$RAYMOND_INPUT\\">SECOND</goto>"'),
  'SECOND.sh': sh(
    'echo "<result>other got [$RAYMOND_INPUT] as $RAYMOND_AGENT_ID in $(basename "$PWD")</result>"',
  ),
};

describe('cross-workflow tags (script states)', () => {
  it("<call-workflow> runs the callee in its own scope and returns its result to the caller's state", async () => {
    box.write(other, 'call/other');
    const main = box.write(
      {
        // The caller has a SECOND too: the callee's SECOND must be its own.
        'START.sh': sh(
          'echo "<call-workflow return=\\"AFTER\\" input=\\"hi\\">../other/</call-workflow>"',
        ),
        'SECOND.sh': sh('echo "<result>the caller\'s SECOND ran</result>"'),
        'AFTER.sh': sh('echo "<result>back: $RAYMOND_INPUT</result>"'),
      },
      'call/main',
    );
    const r = await box.run([main, '--json', '--workflow-id', 'cw1']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      summary(r).results.main,
      `back: other got [hi] as main in ${box.dir.split('/').pop()}`,
    );
    assert.match(r.stderr, /\[main\] running other\/SECOND\.sh/);
    const agent = box.state('cw1').agents[0]!;
    assert.equal(agent.scope, undefined, "back in the run's own scope");
    assert.deepEqual(agent.stack, []);
  });

  it("resolves specifiers against the calling agent's scope, not the current directory, and after a return against the caller's again", async () => {
    box.write(other, 'rel/lib/other');
    box.write(
      {
        'START.sh': sh('echo "<call-workflow return=\\"DONE\\">../other</call-workflow>"'),
        'DONE.sh': sh('echo "<result>mid: $RAYMOND_INPUT</result>"'),
      },
      'rel/lib/mid',
    );
    const main = box.write(
      {
        'START.sh': sh('echo "<call-workflow return=\\"AGAIN\\">../../lib/mid/</call-workflow>"'),
        // Back in main's scope, ../../lib/other is resolved from main's folder again, not mid's.
        'AGAIN.sh': sh(
          'echo "<call-workflow return=\\"END\\">..\\\\..\\\\lib\\\\other\\\\SECOND</call-workflow>"',
        ),
        'END.sh': sh('echo "<result>$RAYMOND_INPUT</result>"'),
      },
      'rel/app/main',
    );
    const cwd = join(box.dir, 'rel/app');
    const r = await raymond([main, '--json'], { cwd });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'other got [] as main in app');
  });

  it('<function-workflow cd> runs the callee in that directory and gives the caller its own back', async () => {
    box.write(other, 'fn/other');
    mkdirSync(join(box.dir, 'fn/elsewhere'), { recursive: true });
    const main = box.write(
      {
        'START.sh': sh(
          'echo "<function-workflow return=\\"AFTER\\" cd=\\"fn/elsewhere\\" input=\\"x\\">../other</function-workflow>"',
        ),
        'AFTER.sh': sh('echo "<result>$RAYMOND_INPUT; caller in $(basename "$PWD")</result>"'),
      },
      'fn/main',
    );
    const r = await box.run([main, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      summary(r).results.main,
      `other got [x] as main in elsewhere; caller in ${box.dir.split('/').pop()}`,
    );
  });

  it('<call-workflow cd> is refused before the callee runs', async () => {
    box.write(
      { 'START.sh': sh('touch "$RAYMOND_WORKFLOW_ID.callee-ran"', 'echo "<result>x</result>"') },
      'nocd/other',
    );
    const main = box.write(
      {
        'START.sh': sh(
          'echo "<call-workflow return=\\"START\\" cd=\\"/tmp\\">../other</call-workflow>"',
        ),
      },
      'nocd/main',
    );
    const r = await box.run([main, '--workflow-id', 'cw-nocd']);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^raymond: .*nocd\/main\/START\.sh: <call-workflow> cannot have cd="\/tmp": it branches the caller's session.*use <function-workflow>/m,
    );
    assert.ok(!existsSync(join(box.dir, 'cw-nocd.callee-ran')));
  });

  it('<fork-workflow> workers are named after the workflow and mix with <fork> under one <goto>', async () => {
    box.write(other, 'fork/other');
    const main = box.write(
      {
        'START.sh': sh(
          'echo "<fork-workflow input=\\"a\\">../other/</fork-workflow>"',
          'echo "<fork item=\\"b\\">LOCAL</fork>"',
          'echo "<fork-workflow input=\\"c\\" next=\\"END\\">../other/SECOND</fork-workflow>"',
          'echo "<goto>END</goto>"',
        ),
        'LOCAL.sh': sh('echo "<result>local $item</result>"'),
        'END.sh': sh('echo "<result>main done</result>"'),
      },
      'fork/main',
    );
    const r = await box.run([main, '--json', '--workflow-id', 'cw-fork']);
    assert.equal(r.code, 0, r.stderr);
    const dir = box.dir.split('/').pop();
    assert.deepEqual(summary(r).results, {
      main: 'main done',
      main_other1: `other got [a] as main_other1 in ${dir}`,
      main_local2: 'local b',
      main_other3: `other got [c] as main_other3 in ${dir}`,
    });
    const agents = Object.fromEntries(
      box.state('cw-fork').agents.map((a) => [a.id, [a.scope, a.workflow_depth]]),
    );
    assert.deepEqual(agents, {
      main: [undefined, undefined],
      main_other1: [join(box.dir, 'fork/other'), 1],
      main_local2: [undefined, undefined],
      main_other3: [join(box.dir, 'fork/other'), 1],
    });
  });

  it("renders {{workflow_id}}, {{agent_id}} and {{task_folder}} (the caller's) in a cross-workflow tag's input, and not in a <fork>'s", async () => {
    box.write({ 'START.sh': sh('echo "<result>$RAYMOND_INPUT</result>"') }, 'vars/other');
    const main = box.write(
      {
        'START.sh': sh(
          'echo "<fork-workflow input=\\"{{agent_id}} {{workflow_id}} {{task_folder}} {{item}}\\">../other</fork-workflow><fork input=\\"{{agent_id}}\\">LOCAL</fork><goto>END</goto>"',
        ),
        'LOCAL.sh': sh('echo "<result>$RAYMOND_INPUT</result>"'),
        'END.sh': sh('echo "<result>end</result>"'),
      },
      'vars/main',
    );
    const r = await box.run([main, '--json', '--workflow-id', 'cw-vars']);
    assert.equal(r.code, 0, r.stderr);
    const results = summary(r).results;
    assert.equal(
      results.main_other1,
      `main cw-vars ${join(box.dir, '.raymond/tasks/cw-vars/main')} {{item}}`,
    );
    assert.equal(results.main_local2, '{{agent_id}}');
  });

  it("a worker's own <fork> stays in the worker's workflow", async () => {
    box.write(
      {
        'START.sh': sh('echo "<fork next=\\"END\\">SUB</fork>"'),
        'SUB.sh': sh('echo "<result>sub of other</result>"'),
        'END.sh': sh('echo "<result>other end</result>"'),
      },
      'nested/other',
    );
    const main = box.write(
      {
        'START.sh': sh('echo "<fork-workflow next=\\"END\\">../other</fork-workflow>"'),
        'END.sh': sh('echo "<result>main end</result>"'),
        'SUB.sh': sh('echo "<result>main\'s SUB: wrong</result>"'),
      },
      'nested/main',
    );
    const r = await box.run([main, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(summary(r).results, {
      main: 'main end',
      main_other1: 'other end',
      main_other1_sub1: 'sub of other',
    });
  });

  it("<reset-workflow> moves the agent into the other workflow for good: stack cleared, cd against the agent's directory", async () => {
    box.write(other, 'reset/other');
    mkdirSync(join(box.dir, 'reset/there'), { recursive: true });
    const main = box.write(
      {
        'START.sh': sh('echo "<call return=\\"NEVER\\">INNER</call>"'),
        'INNER.sh': sh(
          'echo "<reset-workflow cd=\\"reset/there\\" input=\\"r\\">../other/START.sh</reset-workflow>"',
        ),
        'NEVER.sh': sh('echo "<result>the caller was returned to: wrong</result>"'),
      },
      'reset/main',
    );
    const r = await box.run([main, '--json', '--workflow-id', 'cw-reset']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'other got [r] as main in there');
    const agent = box.state('cw-reset').agents[0]!;
    assert.equal(agent.scope, join(box.dir, 'reset/other'));
    assert.equal(agent.workflow_depth, undefined);
  });

  it("calls a zip, a state inside a folder without an entry, and resolves from a zip against the zip's own place", async () => {
    writeFileSync(
      join(box.dir, 'zip-lib.zip'),
      makeZip(
        Object.entries({
          'START.sh': sh('echo "<call-workflow return=\\"DONE\\">../tools/ONLY</call-workflow>"'),
          'DONE.sh': sh('echo "<result>zip: $RAYMOND_INPUT</result>"'),
        }).map(([name, content]) => ({ name, content })),
      ),
    );
    box.write({ 'ONLY.sh': sh('echo "<result>only</result>"') }, 'tools');
    const main = box.write(
      {
        'START.sh': sh('echo "<call-workflow return=\\"END\\">../zip-lib.zip</call-workflow>"'),
        'END.sh': sh('echo "<result>$RAYMOND_INPUT</result>"'),
      },
      'zipcaller',
    );
    const r = await box.run([main, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'zip: only');
  });

  it('calls into a YAML workflow at a named state, and a YAML caller resolves against a folder named after its file', async () => {
    box.write(
      {
        'flow.yaml':
          'states:\n  START:\n    sh: echo "<result>yaml start</result>"\n  CHECK:\n    sh: |\n      echo "<result>yaml check got $RAYMOND_INPUT</result>"\n',
        'caller.yaml':
          'states:\n  START:\n    sh: |\n      echo "<call-workflow return=\\"END\\" input=\\"x\\">../flow.yaml/CHECK</call-workflow>"\n  END:\n    sh: |\n      echo "<result>caller: $RAYMOND_INPUT</result>"\n',
      },
      'yamls',
    );
    const r = await box.run([
      join(box.dir, 'yamls/caller.yaml'),
      '--json',
      '--workflow-id',
      'cw-yaml',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'caller: yaml check got x');
    assert.match(r.stderr, /\[main\] running flow\.yaml\/CHECK\.sh/);
  });

  it('a missing callee, or a folder with no entry, fails the agent with one line naming the calling state', async () => {
    box.write({ 'NOT_START.sh': sh('echo "<result>x</result>"') }, 'bad/noentry');
    for (const [spec, why] of [
      ['../nowhere/', /workflow "\.\.\/nowhere\/" is not a folder/],
      ['../nothing.zip', /workflow "\.\.\/nothing\.zip" is not there/],
      ['../noentry', /workflow "\.\.\/noentry" \(.*noentry\): no entry state/],
      ['../noentry/MISSING', /target "MISSING" matches no state/],
    ] as const) {
      const main = box.write(
        { 'START.sh': sh(`echo '<call-workflow return="START">${spec}</call-workflow>'`) },
        `bad/main-${spec.replace(/\W/g, '')}`,
      );
      const r = await box.run([main]);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, why);
      assert.match(r.stderr, /^raymond: .*START\.sh: /m);
    }
  });

  it('stops a composition nested more than 4 deep', async () => {
    const main = box.write(
      {
        'START.sh': sh(
          'echo "$RAYMOND_AGENT_ID" >> "$RAYMOND_WORKFLOW_ID.depths"',
          'echo "<function-workflow return=\\"START\\">../loop</function-workflow>"',
        ),
      },
      'deep/loop',
    );
    const r = await box.run([main, '--workflow-id', 'cw-deep']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /would nest workflows 5 deep; at most 4 are allowed/);
    assert.equal(
      box.read('cw-deep.depths').trim().split('\n').length,
      5,
      'the top and four nested calls ran',
    );
  });

  it('--resume continues an agent inside the callee and still returns to the caller', async () => {
    box.write(
      {
        'START.sh': sh(
          '[ -f "$RAYMOND_WORKFLOW_ID.ok" ] || exit 9',
          'echo "<result>callee resumed</result>"',
        ),
      },
      'resume/other',
    );
    const main = box.write(
      {
        'START.sh': sh('echo "<call-workflow return=\\"END\\">../other</call-workflow>"'),
        'END.sh': sh('echo "<result>main got: $RAYMOND_INPUT</result>"'),
      },
      'resume/main',
    );
    const first = await box.run([main, '--workflow-id', 'cw-res']);
    assert.equal(first.code, 1, first.stderr);
    const stored = box.state('cw-res').agents[0]!;
    assert.equal(stored.scope, join(box.dir, 'resume/other'));
    assert.deepEqual(
      stored.stack.map((f) => f.workflow),
      [{ scope: null, cwd: box.dir, depth: 0 }],
    );
    writeFileSync(join(box.dir, 'cw-res.ok'), '');
    const second = await box.run(['--resume', 'cw-res', '--json']);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(summary(second).results.main, 'main got: callee resumed');
  });
});
