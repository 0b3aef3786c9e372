import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Sandbox, sh } from '../helpers/cli.js';
import { CLAUDE_BIN_DIR } from '../helpers/claude-sandbox.js';

/** The real `claude` and `pi` (devDependencies) on PATH, as a user's shell gives them. */
const ENV = { PATH: `${CLAUDE_BIN_DIR}${delimiter}${process.env.PATH ?? ''}` };

describe('raymond test: pi workflows, asks, script stubs and bad test files', () => {
  let box: Sandbox;
  before(() => {
    box = new Sandbox();
    box.write({
      'pif/workflow.yaml': 'backend: pi\n',
      'pif/START.md': 'Write notes.md, then <goto>CHECK</goto>\n',
      'pif/CHECK.md': 'Check notes.md: <result>ok</result>\n',
      // With permissions skipped, pi's turns have its bash tool, as in a real run.
      'pif/tests/notes.test.yaml': `flags: { dangerously_skip_permissions: true }
replies:
  START:
    - tools:
        - write: { path: notes.md, content: "first\\n" }
        - edit: { path: notes.md, old: first, new: second }
        - bash: echo ran >> log.txt
      text: <goto>CHECK</goto>
      tokens: { input: 1000, output: 100 }
  CHECK: [ <result>ok</result> ]
expect:
  paths: { main: [START, CHECK] }
  results: { main: ok }
  files: { notes.md: "second\\n", log.txt: "ran\\n" }
  cost: { exactly: 0.0045 }
`,
      'askf/START.md': 'Ask whether to go on: <ask next="GO">Proceed?</ask>\n',
      'askf/GO.md': 'The person said {{input}}. <result>done</result>\n',
      'askf/CHECK.sh': sh('echo "<goto>GO</goto>"'),
      'askf/tests/answered.test.yaml': `replies:
  START: [ '<ask next="GO">Proceed?</ask>' ]
  GO: [ <result>done</result> ]
answers:
  START: [ "yes, go on" ]
expect:
  paths: { main: [START, GO] }
  results: { main: done }
`,
      'askf/tests/unanswered.test.yaml': `replies:
  START: [ '<ask next="GO">Proceed?</ask>' ]
expect:
  status: asking
  exit: 2
  paths: { main: [START] }
  never: [GO]
`,
      'askf/tests/stubbed.test.yaml': `replies:
  START: [ '<goto>CHECK.sh</goto>' ]
scripts:
  CHECK.sh: { exit: 3 }
expect:
  status: failed
  exit: 1
  paths: { main: [START, CHECK] }
  never: [GO]
`,
    });
  });
  after(() => box.remove());

  it('a pi workflow: the real pi writes, edits and runs bash from scripted tool calls; its cost is the scripted tokens at the test price', async () => {
    const r = await box.run(['test', 'pif'], ENV);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^ok {4}pif\/tests\/notes\.test\.yaml {2}notes {2}\(\$0\.0045\)$/m);
  });

  it('asks: answered by the test; without answers the run stops asking (exit 2); a stubbed script fails the run as the real one would', async () => {
    const r = await box.run(['test', 'askf', '--jobs', '2'], ENV);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(r.stdout.split('\n').filter((l) => l.startsWith('ok ')).length, 3, r.stdout);
  });

  it('an ask the test has no answer for fails the test, naming the state and the question', async () => {
    box.write({
      'askf/tests/wrong.test.yaml': `replies:
  START: [ '<ask next="GO">Proceed?</ask>' ]
answers:
  GO: [ "yes" ]
`,
    });
    const r = await box.run(['test', 'askf/tests/wrong.test.yaml'], ENV);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /^ {6}START asked "Proceed\?" \(agent main, ask 1\) and the test has no answer for it$/m,
    );
  });

  it('a test file Raymond cannot use is one line naming it and the problem, exit 64, before any test runs', async () => {
    const cases: Array<[string, RegExp]> = [
      [
        'replies: [1, 2]\n',
        /^raymond: bad\/tests\/x\.test\.yaml: replies is \[1,2\]; it must be an object$/,
      ],
      [
        'flags: { budgt: 1 }\n',
        /^raymond: bad\/tests\/x\.test\.yaml: flags\.budgt: no such run option$/,
      ],
      ['flags: { budget: lots }\n', /^raymond: bad\/tests\/x\.test\.yaml: flags\.budget: /],
      [
        'files: { ../escape.txt: x }\n',
        /^raymond: bad\/tests\/x\.test\.yaml: files: \.\.\/escape\.txt is outside the test's working directory$/,
      ],
      ['replies: {\n', /^raymond: bad\/tests\/x\.test\.yaml: not valid YAML: /],
    ];
    box.write({ 'bad/START.md': 'Go: <result>x</result>\n' });
    for (const [text, line] of cases) {
      box.write({ 'bad/tests/x.test.yaml': text });
      const r = await box.run(['test', 'bad'], ENV);
      const stderr = r.stderr.trim();
      assert.equal(r.code, 64, `${text}: ${r.stdout}${stderr}`);
      assert.match(stderr, line, text);
      assert.equal(stderr.split('\n').length, 1, stderr);
      assert.equal(r.stdout, '');
      assert.equal(existsSync(join(box.dir, 'escape.txt')), false);
    }
  });
});
