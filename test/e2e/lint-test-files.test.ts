import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { join } from 'node:path';
import { Sandbox } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

const WORKFLOW = {
  'START.md': 'Draft it, then reply with <goto>REVIEW.md</goto>',
  'REVIEW.md': 'Review it: <goto>START.md</goto> or <result>approved</result>',
};

describe('raymond lint with workflow tests', () => {
  it('lints the tests/ of a workflow folder: a bad test is one line naming it, and fails lint', async () => {
    const wf = box.write(
      {
        ...WORKFLOW,
        'tests/good.test.yaml': 'replies:\n  START: ["<goto>REVIEW.md</goto>"]\n',
        'tests/bad.test.yaml': 'replies:\n  REVEIW: ["<result>approved</result>"]\n',
        'tests/notes.yaml': 'not: [a test',
      },
      'wf',
    );
    const r = await box.run(['lint', 'wf']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.equal(r.stderr, '');
    assert.deepEqual(r.stdout.trimEnd().split('\n'), [
      'wf/tests/bad.test.yaml: error test-unknown-state: replies names state REVEIW, which the workflow does not have (did you mean REVIEW?)',
      'wf: 1 error, 0 warnings in 2 states',
    ]);

    const json = await box.run(['lint', wf, '--json']);
    assert.equal(json.code, 1);
    const report = JSON.parse(json.stdout) as { findings: Array<{ file: string }>; errors: number };
    assert.deepEqual(
      report.findings.map((f) => f.file),
      [join(wf, 'tests/bad.test.yaml')],
    );
    assert.equal(report.errors, 1);
  });

  it('a test folder with only good tests leaves lint clean: tests/ is no state', async () => {
    box.write(
      {
        ...WORKFLOW,
        'tests/ok.test.yaml': [
          'replies:',
          '  START: ["<goto>REVIEW.md</goto>"]',
          '  REVIEW: ["<result>approved</result>"]',
          'expect: { paths: { main: [START, REVIEW] }, results: { main: approved } }',
        ].join('\n'),
      },
      'clean',
    );
    const r = await box.run(['lint', 'clean']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(r.stdout, 'clean: 0 errors, 0 warnings in 2 states\n');
  });

  it('lints one test file against its workflow', async () => {
    box.write(
      {
        ...WORKFLOW,
        'tests/agents.test.yaml': 'expect:\n  results: { main_review1: approved }\n',
      },
      'one',
    );
    const r = await box.run(['lint', 'one/tests/agents.test.yaml']);
    assert.equal(r.code, 1, r.stderr);
    assert.deepEqual(r.stdout.trimEnd().split('\n'), [
      'one/tests/agents.test.yaml: error test-impossible-agent: expect.results names agent main_review1, which cannot exist: the workflow has no <fork>, so its only agent is main',
      'one/tests/agents.test.yaml: 1 error, 0 warnings in 2 states',
    ]);
  });

  it('a test file that cannot be read is one error line naming it', async () => {
    box.write({ ...WORKFLOW, 'tests/broken.test.yaml': 'replies: [1, 2\n' }, 'broken');
    const alone = await box.run(['lint', 'broken/tests/broken.test.yaml']);
    assert.equal(alone.code, 64, alone.stderr);
    assert.equal(alone.stdout, '');
    assert.match(
      alone.stderr,
      /^raymond: broken\/tests\/broken\.test\.yaml: not valid YAML: .+\n$/,
    );

    const folder = await box.run(['lint', 'broken']);
    assert.equal(folder.code, 1);
    assert.match(
      folder.stdout,
      /^broken\/tests\/broken\.test\.yaml: error bad-test-file: not valid YAML: [^\n]+\nbroken: 1 error, 0 warnings in 2 states\n$/,
    );
  });
});
