import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Sandbox, raymond, type CliResult } from '../helpers/cli.js';
import { CLAUDE_BIN_DIR } from '../helpers/claude-sandbox.js';

// Every scaffold carries a workflow test; these run it as its author would,
// with the real `claude` against Raymond's scripted model.

const box = new Sandbox();
after(() => box.remove());

/** `raymond test ARGS` in the sandbox, with the real `claude` on PATH (a run takes a few real turns). */
function raymondTest(args: string[]): Promise<CliResult> {
  return raymond(['test', ...args], {
    cwd: box.dir,
    env: { PATH: `${CLAUDE_BIN_DIR}${delimiter}${process.env.PATH ?? ''}` },
    timeoutMs: 120_000,
  });
}

const TESTS: Record<string, string> = {
  'fork-join': 'two-parts',
  'review-loop': 'approved-after-one-revision',
  'batch-refactor': 'two-targets',
};

describe('raymond new: the scaffold test', () => {
  for (const [template, test] of Object.entries(TESTS)) {
    it(`--template ${template}: its tests/${test}.test.yaml passes under raymond test NAME, as the README says`, async () => {
      const name = `tested-${template}`;
      const made = await raymondNew(name, template);
      assert.equal(made.code, 0, made.stderr);
      assert.match(box.read(`${name}/README.md`), new RegExp(`^raymond test ${name} +# `, 'm'));
      const r = await raymondTest([name]);
      assert.equal(r.stderr, '');
      assert.equal(
        r.stdout,
        [
          `ok    ${name}/tests/${test}.test.yaml  ${test}  ($${template === 'review-loop' ? '0.003' : '0.00'})`,
          `1 test: 1 passed, 0 failed (scripted cost $${template === 'review-loop' ? '0.003' : '0.00'}, nothing spent)`,
          '',
        ].join('\n'),
      );
      assert.equal(r.code, 0);
    });
  }

  it('fails once a reply changes, naming the state where the run went another way', async () => {
    const name = 'changed-review-loop';
    assert.equal((await raymondNew(name, 'review-loop')).code, 0);
    const file = join(box.dir, name, 'tests/approved-after-one-revision.test.yaml');
    const text = readFileSync(file, 'utf8');
    const changed = text.replace(
      '    - Too short. <goto>REVISE.md</goto>',
      '    - <result>approved</result>',
    );
    assert.notEqual(changed, text);
    writeFileSync(file, changed);
    const r = await raymondTest([name]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const lines = r.stdout.split('\n');
    assert.ok(
      lines[0]!.startsWith(
        `FAIL${' '.repeat(2)}${name}/tests/approved-after-one-revision.test.yaml`,
      ),
      r.stdout,
    );
    assert.deepEqual(
      lines.slice(1, 4).map((l) => l.trim()),
      ['agent main, step 3 (after REVIEW)', 'expected: REVISE', 'got:      (the agent ended)'],
      r.stdout,
    );
    assert.match(r.stdout, /prompt the model saw in REVIEW:\n +\| Review `draft\.md` strictly/);
    assert.match(r.stdout, /\n1 test: 0 passed, 1 failed /);
  });
});

function raymondNew(name: string, template: string): Promise<CliResult> {
  return box.run(['new', name, '--template', template]);
}
