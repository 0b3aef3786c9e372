import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Sandbox } from '../helpers/cli.js';
import { CLAUDE_BIN_DIR } from '../helpers/claude-sandbox.js';

/** `raymond test` finds the agent CLI on PATH, as a user's shell gives it. */
const ENV = { PATH: `${CLAUDE_BIN_DIR}${delimiter}${process.env.PATH ?? ''}` };

/** A goto / call / fork / join workflow with a state no test should reach. */
const FLOW = {
  'flow/START.md': 'Plan the work for: {{input}}. <call return="AFTER">HELPER</call>\n',
  'flow/HELPER.md': 'Help: reply with <result>TEXT</result>.\n',
  'flow/AFTER.md': 'The helper said {{input}}. Fork a worker per fruit, then join at COLLECT.\n',
  'flow/DESCRIBE.md': 'Describe the fruit {{item}} in one word: <result>WORD</result>\n',
  'flow/COLLECT.md':
    'The workers said: {{input}}. Reply <result>SUMMARY</result>, or <goto>ESCALATE</goto> if they disagree.\n',
  'flow/ESCALATE.md': 'Escalate: <result>escalated</result>\n',
};

/** The test of FLOW; `collect` is COLLECT's reply, `helper` HELPER's turns. */
function fruitsTest(
  collect = '<result>red and yellow</result>',
  helper = '[ "<result>helped</result>" ]',
): string {
  return `name: two fruits described and collected
input: fruit salad
replies:
  START: [ "<call return=\\"AFTER\\">HELPER</call>" ]
  HELPER: ${helper}
  AFTER:
    - |
      <fork item="apple">DESCRIBE</fork>
      <fork item="banana">DESCRIBE</fork>
      <join>COLLECT</join>
  DESCRIBE:
    - when: { item: banana }
      text: <result>yellow</result>
      tokens: { input: 2000, output: 100 }
    - <result>red</result>
  COLLECT:
    - tools:
        - bash: printf 'red and yellow' > summary.txt
      text: ${collect}
expect:
  paths:
    main: [START, HELPER, AFTER, COLLECT]
    main_descri1: [DESCRIBE]
    main_descri2: [DESCRIBE.md]
  results:
    main: red and yellow
    main_descri2: yellow
  files:
    summary.txt: red and yellow
    not-there.txt: null
  agents: 3
  never: [ESCALATE]
  cost: { at_most: 0.5 }
`;
}

describe('raymond test: a goto/call/fork/join workflow with the real claude and the scripted model', () => {
  let box: Sandbox;
  before(() => {
    box = new Sandbox();
    box.write(FLOW);
  });
  after(() => box.remove());

  it('passes with the scripted replies: paths, per-attribute replies, a Bash call whose file is checked, results, cost; --coverage names the untaken edge', async () => {
    box.write({ 'flow/tests/fruits.test.yaml': fruitsTest() });
    const r = await box.run(['test', 'flow', '--coverage'], ENV);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    // Coverage against the graph: the escalation the test never takes is named.
    assert.match(r.stdout, /^coverage flow: 5\/6 states, \d+\/\d+ edges$/m);
    assert.match(r.stdout, /^ {2}never ran: ESCALATE$/m);
    assert.match(r.stdout, /^ {2}never taken: COLLECT -goto-> ESCALATE$/m);
    assert.doesNotMatch(r.stdout, /never taken: AFTER -fork-> DESCRIBE/);
    assert.match(
      r.stdout,
      /^ok {4}flow\/tests\/fruits\.test\.yaml {2}two fruits described and collected {2}\(\$0\.\d+\)$/m,
    );
    assert.match(r.stdout, /^1 test: 1 passed, 0 failed/m);
  });

  it('fails when a reply changes, showing the first divergence: agent, step, expected, got and the prompt the model saw', async () => {
    box.write({ 'flow/tests/fruits.test.yaml': fruitsTest('<goto>ESCALATE</goto>') });
    const r = await box.run(['test', 'flow'], ENV);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^FAIL {2}flow\/tests\/fruits\.test\.yaml/m);
    assert.match(r.stdout, /^ {6}agent main, step 5 \(after COLLECT\)$/m);
    assert.match(r.stdout, /^ {6}expected: \(the agent ends\)$/m);
    assert.match(r.stdout, /^ {6}got: {6}ESCALATE$/m);
    assert.match(r.stdout, /^ {6}prompt the model saw in COLLECT:$/m);
    // What the workers returned reached COLLECT's prompt: the join's input, as the model saw it.
    assert.match(r.stdout, /^ {8}\| The workers said: \[\{"agent":"main_descri1".*"result":"red"/m);
    assert.match(r.stdout, /^1 test: 0 passed, 1 failed/m);
  });

  it('fails a turn the test does not script, naming state and turn, with the prompt; the stopped run leaves no scratch folder', async () => {
    box.write({ 'flow/tests/fruits.test.yaml': fruitsTest(undefined, '[]') });
    // Its own temporary folder: the stopped run's scratch folder must be gone, though claude was killed mid-turn.
    const tmp = join(box.dir, 'tmp');
    mkdirSync(tmp);
    const r = await box.run(['test', 'flow'], { ...ENV, TMPDIR: tmp });
    assert.deepEqual(readdirSync(tmp), []);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^ {6}no reply is scripted for HELPER turn 1 \(agent main\)$/m);
    assert.match(r.stdout, /^ {8}\| Help: reply with <result>TEXT<\/result>\.$/m);
  });

  it('gives byte-identical output on two runs of the same suite, passing and failing tests alike, and JUnit XML that reads back', async () => {
    box.write({
      'flow/tests/fruits.test.yaml': fruitsTest(),
      'flow/tests/wrong-file.test.yaml': fruitsTest().replace(
        'summary.txt: red and yellow',
        'summary.txt: { match: "^green" }',
      ),
    });
    const first = await box.run(['test', 'flow', '--junit', 'report.xml'], ENV);
    const report = readFileSync(join(box.dir, 'report.xml'), 'utf8');
    const second = await box.run(['test', 'flow', '--junit', 'report.xml'], ENV);
    assert.equal(first.code, 1, first.stdout + first.stderr);
    assert.equal(second.stdout, first.stdout);
    assert.equal(readFileSync(join(box.dir, 'report.xml'), 'utf8'), report);
    assert.match(
      first.stdout,
      /^ {6}file summary\.txt\n {6}expected: \/\^green\/\n {6}got: {6}"red and yellow"$/m,
    );
    assert.match(report, /<testsuite name="raymond test" tests="2" failures="1">/);
    const cases = [
      ...report.matchAll(
        /<testcase classname="([^"]+)" name="([^"]+)"(\/>|>\s*<failure message="([^"]*)">)/g,
      ),
    ];
    assert.deepEqual(
      cases.map((c) => [c[1], c[4] ?? null]),
      [
        ['flow/tests/fruits.test.yaml', null],
        ['flow/tests/wrong-file.test.yaml', 'file summary.txt'],
      ],
    );
  });

  it('--json gives each test, its divergence and the counts', async () => {
    const r = await box.run(['test', 'flow/tests/wrong-file.test.yaml', '--json'], ENV);
    assert.equal(r.code, 1, r.stderr);
    const out = JSON.parse(r.stdout) as {
      passed: number;
      failed: number;
      tests: Array<{ name: string; passed: boolean; divergence?: { what: string } }>;
    };
    assert.deepEqual([out.passed, out.failed], [0, 1]);
    assert.equal(out.tests[0]?.divergence?.what, 'file summary.txt');
  });
});
