import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Sandbox } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

const TEMPLATES: Record<string, { states: string[]; test: string }> = {
  'fork-join': { states: ['COLLECT.md', 'START.md', 'WORKER.md'], test: 'two-parts' },
  'review-loop': {
    states: ['REVIEW.md', 'REVISE.md', 'START.md'],
    test: 'approved-after-one-revision',
  },
  'batch-refactor': { states: ['MERGE.sh', 'START.sh', 'WORKER.md'], test: 'two-targets' },
};

describe('raymond new', () => {
  for (const [template, { states, test }] of Object.entries(TEMPLATES)) {
    it(`--template ${template} makes a folder that lints without a warning, with a README saying how to run it`, async () => {
      const name = `flow-${template}`;
      const made = await box.run(['new', name, '--template', template]);
      assert.equal(made.code, 0, made.stderr);
      assert.match(
        made.stdout,
        new RegExp(
          `^made ${name} from the ${template} template: README.md, ${states.map((s) => `states/${s}`).join(', ')}, tests/${test}\\.test\\.yaml, workflow.yaml\\n`,
        ),
      );
      assert.deepEqual(readdirSync(join(box.dir, name)).sort(), [
        'README.md',
        'states',
        'tests',
        'workflow.yaml',
      ]);
      assert.deepEqual(readdirSync(join(box.dir, name, 'states')).sort(), states);
      for (const s of states.filter((f) => f.endsWith('.sh')))
        assert.ok(statSync(join(box.dir, name, 'states', s)).mode & 0o100, `${s} is executable`);
      assert.match(box.read(`${name}/README.md`), new RegExp(`^raymond ${name} --input "`, 'm'));
      const lint = await box.run(['lint', name, '--json']);
      assert.equal(lint.code, 0, lint.stdout + lint.stderr);
      const report = JSON.parse(lint.stdout) as { errors: number; warnings: number };
      assert.deepEqual([report.errors, report.warnings], [0, 0], lint.stdout);
    });
  }

  it('fork-join is the default: a markdown START that forks WORKER.md and joins at COLLECT.md', async () => {
    const made = await box.run(['new', 'default-flow']);
    assert.equal(made.code, 0, made.stderr);
    const start = box.read('default-flow/states/START.md');
    assert.match(start, /<fork part="[^"]+">WORKER\.md<\/fork>/);
    assert.match(start, /<join>COLLECT\.md<\/join>/);
    const diagram = await box.run(['diagram', 'default-flow']);
    assert.match(diagram.stdout, /START_md -\.->\|fork\| WORKER_md/);
    assert.match(diagram.stdout, /START_md -->\|join\| COLLECT_md/);
  });

  it('refuses a folder that is not empty, or a file, in one line, and writes nothing', async () => {
    box.write({ 'taken/notes.txt': 'mine\n', 'file.txt': 'x\n' });
    const taken = await box.run(['new', 'taken']);
    assert.equal(taken.code, 64);
    assert.equal(
      taken.stderr,
      'raymond: taken: already exists and is not empty: give the name of a new folder\n',
    );
    assert.deepEqual(readdirSync(join(box.dir, 'taken')), ['notes.txt']);
    const file = await box.run(['new', 'file.txt']);
    assert.equal(file.code, 64);
    assert.equal(
      file.stderr,
      'raymond: file.txt: already exists and is not a folder: give the name of a new folder\n',
    );
    assert.equal(readFileSync(join(box.dir, 'file.txt'), 'utf8'), 'x\n');
  });

  it('fills an empty folder, and makes missing parents', async () => {
    mkdirSync(join(box.dir, 'empty'));
    const empty = await box.run(['new', 'empty', '--template', 'review-loop']);
    assert.equal(empty.code, 0, empty.stderr);
    assert.ok(statSync(join(box.dir, 'empty/states/REVIEW.md')).isFile());
    const nested = await box.run(['new', 'a/b/flow']);
    assert.equal(nested.code, 0, nested.stderr);
    assert.ok(statSync(join(box.dir, 'a/b/flow/states/START.md')).isFile());
  });

  it('refuses an unknown template, naming the ones there are', async () => {
    const r = await box.run(['new', 'x', '--template', 'nope']);
    assert.equal(r.code, 64);
    assert.match(
      r.stderr,
      /^raymond: option '--template <template>' argument 'nope' is invalid\. Allowed choices are fork-join, review-loop, batch-refactor\./,
    );
  });
});
