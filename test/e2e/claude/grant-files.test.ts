import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { raymond } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';
import { makeZip } from '../../helpers/make-zip.js';

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

/** What a workflow must never send to the model: a file beside the workflow, not in it. */
const SECRET = 'GRANT-SECRET-9f1c';

/** A workflow whose one state names `file` as its system prompt. */
function workflow(name: string, file: string): string {
  const wf = box.write(
    { 'START.md': `---\nappend_system_prompt: "@${file}"\n---\nGRANT-FILE-${name}: go` },
    name,
  );
  return wf;
}

/** lint, diagram and plan on `wf`: each must end (a hang fails the test at its time limit). */
async function analyses(wf: string) {
  const run = (args: string[]) => raymond(args, { cwd: box.dir, timeoutMs: 20_000 });
  return {
    lint: await run(['lint', wf]),
    diagram: await run(['diagram', wf, '--html', join(box.dir, 'd.html')]),
    plan: await run(['plan', wf]),
  };
}

describe('grant files stay inside the workflow, are regular files, and are small', () => {
  before(() => writeFileSync(join(box.dir, 'secret.txt'), SECRET));

  const cases: Array<[string, (wf: string) => void, string, RegExp]> = [
    ['a path out of the folder', () => {}, '../secret.txt', /outside the workflow's folder/],
    [
      'a symbolic link out of the folder',
      (wf) => symlinkSync(join(box.dir, 'secret.txt'), join(wf, 'rules.txt')),
      'rules.txt',
      /resolves to .*secret\.txt, outside the workflow's folder/,
    ],
    [
      'a FIFO',
      (wf) => execFileSync('mkfifo', [join(wf, 'rules.txt')]),
      'rules.txt',
      /not a regular file/,
    ],
    [
      'a link to /dev/zero inside the folder',
      (wf) => {
        mkdirSync(join(wf, 'dev'));
        symlinkSync('/dev/zero', join(wf, 'dev', 'zero'));
      },
      'dev/zero',
      /\/dev\/zero, outside the workflow's folder/,
    ],
    [
      'a file over 1 MiB',
      (wf) => writeFileSync(join(wf, 'rules.txt'), 'x'.repeat(2 ** 20 + 1)),
      'rules.txt',
      /larger than 1024 KiB/,
    ],
  ];
  for (const [what, plant, file, why] of cases)
    it(`${what}: lint names it, diagram and plan end, and the run fails before any request`, async () => {
      const name = `gf${cases.findIndex((c) => c[0] === what)}`;
      const wf = workflow(name, file);
      plant(wf);
      const { lint, diagram, plan } = await analyses(wf);
      assert.equal(lint.code, 1, lint.stderr + lint.stdout);
      assert.match(lint.stdout + lint.stderr, /bad-grant-file: append_system_prompt: cannot read/);
      assert.match(lint.stdout + lint.stderr, why);
      assert.equal(diagram.code, 0, diagram.stderr);
      assert.notEqual(plan.code, -1, 'plan ended');
      const r = await box.run([wf, '--workflow-id', name], undefined);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, why);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
      assert.equal(box.server.requestsFor(`GRANT-FILE-${name}`).length, 0);
      assert.ok(!box.server.requests.some((q) => JSON.stringify(q).includes(SECRET)));
    });

  it("a zip workflow's grant file cannot leave its extraction folder", async () => {
    const zip = join(box.dir, 'escape.zip');
    writeFileSync(
      zip,
      makeZip([
        {
          name: 'START.md',
          content: `---\nappend_system_prompt: "@../../../../../../..${join(box.dir, 'secret.txt')}"\n---\nGRANT-FILE-zip: go`,
        },
      ]),
    );
    const lint = await raymond(['lint', zip], { cwd: box.dir, timeoutMs: 20_000 });
    assert.match(lint.stdout + lint.stderr, /outside the workflow's folder/);
    const r = await box.run([zip, '--workflow-id', 'gfzip']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /outside the workflow's folder/);
    assert.ok(!box.server.requests.some((q) => JSON.stringify(q).includes(SECRET)));
  });
});
