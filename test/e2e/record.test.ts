import assert from 'node:assert/strict';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { loadTestFile } from '../../src/testing/test-file.js';
import type { TestSpec } from '../../src/testing/test-spec-schema.js';
import { ClaudeSandbox } from '../helpers/claude-sandbox.js';

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

const sh = (body: string) => `#!/bin/sh\n${body}\n`;

describe('raymond record, with runs of the real claude binary against the scripted API', () => {
  it('a goto/fork/join/result run becomes a test: each turn with its tool calls and tokens, the agents, paths and results', async () => {
    const s = box.server;
    s.on('REC-START', (r) =>
      r.afterTool
        ? { text: 'made it <goto>PLAN</goto>', usage: { input_tokens: 700, output_tokens: 30 } }
        : {
            toolUse: { name: 'Bash', input: { command: 'echo hi > hi.txt' } },
            usage: { input_tokens: 300, output_tokens: 20 },
          },
    );
    s.on('REC-PLAN', {
      text: '<fork topic="apples">RESEARCH</fork><fork topic="pears">RESEARCH</fork><join>SUMMARY</join>',
    });
    s.on('REC-WORKER', (r) => ({
      text: `<result>facts about ${/topic: (\w+)/.exec(r.prompt)?.[1]}</result>`,
    }));
    s.on('REC-SUMMARY', (r) =>
      r.afterTool
        ? { text: '<result>both seen</result>' }
        : {
            toolUse: {
              name: 'Write',
              input: { file_path: join(box.dir, 'notes.txt'), content: 'summary\n' },
            },
          },
    );
    const wf = box.write(
      {
        'START.md': 'REC-START: {{input}}',
        'PLAN.md': 'REC-PLAN',
        'RESEARCH.md': 'REC-WORKER topic: {{topic}}',
        'SUMMARY.md': 'REC-SUMMARY of {{input}}',
      },
      'fruit',
    );
    const run = await box.run(
      [wf, '--workflow-id', 'rec1', '--input', 'list fruit', '--budget', '2', '--json'],
      { IS_SANDBOX: '1' },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(box.read('hi.txt'), 'hi\n', 'the Bash call ran');

    const r = await box.run(['record', 'rec1']);
    assert.equal(r.code, 0, r.stderr);
    const file = join(wf, 'tests', 'rec1.test.yaml');
    assert.match(r.stdout, /^wrote .*fruit\/tests\/rec1\.test\.yaml: 5 turn\(s\) of run rec1/);
    const text = box.read('fruit/tests/rec1.test.yaml');
    assert.match(text, /^# Recorded by `raymond record rec1` from the run started /);
    const loaded = loadTestFile(file);
    assert.equal(loaded.workflow, wf, 'the test sits in the workflow: no workflow: line');
    const spec = parse(text) as TestSpec;
    assert.equal(spec.workflow, undefined);
    assert.equal(spec.input, 'list fruit');
    assert.equal(spec.flags?.budget, 2);
    assert.deepEqual(spec.replies?.START, [
      {
        agent: 'main',
        tools: [{ bash: 'echo hi > hi.txt' }],
        text: 'made it <goto>PLAN</goto>',
        tokens: { input: 1000, output: 50 },
      },
    ]);
    assert.deepEqual(
      spec.replies?.RESEARCH?.map((t) => typeof t !== 'string' && [t.agent, t.text]),
      [
        ['main_resear1', '<result>facts about apples</result>'],
        ['main_resear2', '<result>facts about pears</result>'],
      ],
    );
    const [summary] = spec.replies?.SUMMARY ?? [];
    assert.ok(summary && typeof summary !== 'string');
    assert.deepEqual(summary.tools, [{ write: { path: 'notes.txt', content: 'summary\n' } }]);
    assert.equal(
      summary.tokens?.input,
      2000,
      'the default 1,000 input tokens of each of its two requests',
    );
    assert.deepEqual(spec.expect, {
      status: 'completed',
      exit: 0,
      paths: {
        main: ['START -goto->', 'PLAN -fork->', 'SUMMARY -result->'],
        main_resear1: ['RESEARCH -result->'],
        main_resear2: ['RESEARCH -result->'],
      },
      results: {
        main_resear1: 'facts about apples',
        main_resear2: 'facts about pears',
        main: 'both seen',
      },
      agents: 3,
    });

    // The recorded test replays the run offline: the same paths and results, free.
    const replay = await box.run(['test', file]);
    assert.equal(replay.code, 0, `${replay.stdout}${replay.stderr}`);
    assert.match(replay.stdout, /^ok +\S+rec1\.test\.yaml +rec1/m);
    writeFileSync(file, text.replace('made it <goto>PLAN</goto>', 'made it <goto>SUMMARY</goto>'));
    const changed = await box.run(['test', file]);
    assert.notEqual(changed.code, 0, 'a changed reply makes the recorded test fail');
    assert.match(
      changed.stdout,
      /agent main, step 2 \(after START\)\n\s+expected: PLAN\n\s+got: +SUMMARY/,
    );
    // The same states, left by another kind of transition: the recorded kinds catch it.
    writeFileSync(file, text.replace('made it <goto>PLAN</goto>', 'made it <reset>PLAN</reset>'));
    const kind = await box.run(['test', file]);
    assert.equal(kind.code, 1, `${kind.stdout}${kind.stderr}`);
    assert.match(
      kind.stdout,
      /agent main, step 1 \(START\): its transition\n\s+expected: goto\n\s+got: +reset/,
    );
    writeFileSync(file, text);

    const again = await box.run(['record', 'rec1']);
    assert.notEqual(again.code, 0, 'an existing test is not replaced without --force');
    assert.match(again.stderr, /rec1\.test\.yaml: the test file exists: give --force/);
    const stdout = await box.run(['record', 'rec1', '--out', '-']);
    assert.equal(stdout.code, 0, stdout.stderr);
    assert.match(
      stdout.stdout,
      /^workflow: fruit$/m,
      'on stdout, the workflow is relative to here',
    );
  });

  it("the answers to a run's asks are recorded, per asking state; a single agent's turns name nobody", async () => {
    const wf = box.write(
      {
        'START.sh': sh('echo "<ask next=\\"DONE.sh\\">go on?</ask>"'),
        'DONE.sh': sh('echo "<result>got $RAYMOND_INPUT</result>"'),
      },
      'asker',
    );
    const first = await box.run([wf, '--on-ask=pause', '--workflow-id', 'rec2']);
    assert.equal(first.code, 2, first.stderr);
    const done = await box.run(['--resume', 'rec2', '--input', 'yes, "go"']);
    assert.equal(done.code, 0, done.stderr);
    const r = await box.run(['record', 'rec2', '--out', 'asker.test.yaml']);
    assert.equal(r.code, 0, r.stderr);
    const spec = parse(box.read('asker.test.yaml')) as TestSpec;
    assert.equal(spec.workflow, 'asker');
    assert.deepEqual(spec.answers, { START: ['yes, "go"'] });
    assert.equal(spec.replies, undefined, 'script states run for real');
    assert.deepEqual(spec.expect?.paths, { main: ['START -ask->', 'DONE -result->'] });
    assert.deepEqual(spec.expect?.results, { main: 'got yes, "go"' });
  });

  it('a run that cannot be recorded is one line naming the file: no such run, no debug logs', async () => {
    const none = await box.run(['record', 'nosuch']);
    assert.equal(none.code === 0, false);
    assert.match(none.stderr, /nosuch\.json: no run with id "nosuch" here/);
    assert.equal(none.stderr.trim().split('\n').length, 1, none.stderr);
    rmSync(join(box.dir, '.raymond/debug/rec2'), { recursive: true });
    const gone = await box.run(['record', 'rec2', '--out', '-']);
    assert.notEqual(gone.code, 0);
    assert.match(
      gone.stderr,
      /debug\/rec2\/transitions\.log: run rec2 has no debug log to record from/,
    );
    assert.equal(gone.stderr.trim().split('\n').length, 1, gone.stderr);
    const debug = join(box.dir, '.raymond/debug/rec1');
    const plan = readdirSync(debug).find((f) => f.startsWith('main_PLAN_'))!;
    rmSync(join(debug, plan));
    const cut = await box.run(['record', 'rec1', '--out', '-']);
    assert.notEqual(cut.code, 0);
    assert.match(cut.stderr, /debug\/rec1: the stream of main's step 1 of PLAN\.md is missing/);
    assert.equal(cut.stdout, '', 'nothing is written');
  });
});
