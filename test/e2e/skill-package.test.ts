import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import { CLI, ROOT, Sandbox, sh, summary } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

const PACKAGE = join(ROOT, 'workflows/examples/approval');

/** Raymond installed as `ray`, as the package's run.sh expects it on PATH. */
function rayOnPath(): Record<string, string> {
  const bin = join(box.dir, 'bin');
  mkdirSync(bin, { recursive: true });
  symlinkSync(CLI, join(bin, 'ray'));
  return { PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` };
}

describe('a skill package driven as its callers drive it', () => {
  it('run.sh run, then run.sh resume while it exits 2, reading only exit codes and the JSON, ends with exit 0', async () => {
    const env = rayOnPath();
    const sh = (args: string[], extra: Record<string, string>) =>
      execa(join(PACKAGE, 'run.sh'), args, {
        cwd: box.dir,
        env: { ...env, ...extra },
        reject: false,
        stdin: 'ignore',
      });
    const answers = ['add a changelog entry', 'approve'];
    const codes: number[] = [];
    const prompts: string[] = [];
    let r = await sh(['run'], { INPUT: 'rename the config loader' });
    codes.push(r.exitCode!);
    while (r.exitCode === 2) {
      const out = JSON.parse(String(r.stdout)) as {
        status: string;
        run_id: string;
        asking: { prompt: string };
        pending_count: number;
        resume: string;
      };
      assert.equal(out.status, 'asking');
      assert.equal(out.pending_count, 0);
      assert.match(
        out.resume,
        /^ray --resume \S+ --input "\[your response\]"$/,
        'the hint names the command the package runs',
      );
      prompts.push(out.asking.prompt);
      const answer = answers.shift();
      assert.ok(answer !== undefined, `asked once too often: ${out.asking.prompt}`);
      r = await sh(['resume'], { RUN_ID: out.run_id, INPUT: answer });
      codes.push(r.exitCode!);
    }
    assert.deepEqual(codes, [2, 2, 0], String(r.stderr));
    assert.match(prompts[0]!, /^Plan for "rename the config loader" is in .*plan\.md: three steps/);
    assert.match(prompts[1]!, /^Noted in .*plan\.md\. Reply approve/);
    assert.match(
      String(r.stdout),
      /^implemented: rename the config loader \(plan .*\/\.raymond\/tasks\/approval-[0-9a-f]+\/main\/plan\.md\)$/,
    );
  });

  it('raymond PACKAGE runs its states/ as serve does: it starts at states/1_START.sh, asks, and a resume finishes it', async () => {
    const r = await box.run([PACKAGE, '--on-ask=pause', '--input', 'rename the loader']);
    assert.equal(r.code, 2, r.stderr);
    const out = JSON.parse(r.stdout) as {
      status: string;
      run_id: string;
      workflow: string;
      asking: { prompt: string };
    };
    assert.equal(out.status, 'asking');
    assert.equal(out.workflow, 'approval');
    assert.match(
      out.run_id,
      /^approval-[0-9a-f]{8}$/,
      'the run is named after the package, not states/',
    );
    assert.match(out.asking.prompt, /^Plan for "rename the loader" is in /);
    assert.match(r.stderr, /\[main\] running 1_START\.sh/);
    const done = await box.run(['--resume', out.run_id, '--input', 'approve', '--json']);
    assert.equal(done.code, 0, done.stderr);
    assert.match(summary(done).results.main ?? '', /^implemented: rename the loader \(plan /);
  });

  it("raymond PACKAGE keeps its manifest's promises: a required input is asked for, none-inputs refused, default_budget is the budget unless given", async () => {
    const bare = await box.run([PACKAGE]);
    assert.equal(bare.code, 64, bare.stderr);
    assert.equal(
      bare.stderr.trim(),
      `raymond: ${PACKAGE}/workflow.yaml: this workflow needs an input (Change: The change to plan, in one sentence.): give it with --input TEXT`,
    );
    assert.equal(bare.stdout, '', 'nothing ran');
    const given = await box.run([PACKAGE, '--on-ask=pause', '--input', 'rename foo']);
    assert.equal(given.code, 2, given.stderr);
    assert.match(given.stderr, /cost \$0\.00 of \$1\.00/, "the manifest's default_budget");
    const flag = await box.run([
      PACKAGE,
      '--on-ask=pause',
      '--input',
      'rename foo',
      '--budget',
      '5',
    ]);
    assert.equal(flag.code, 2, flag.stderr);
    assert.match(flag.stderr, /cost \$0\.00 of \$5\.00/, '--budget beats the manifest');
    const none = box.write({
      'quiet/workflow.yaml': 'id: quiet\ninput:\n  mode: none\n',
      'quiet/states/START.sh': sh('echo "<result>ok</result>"'),
    });
    const refused = await box.run([join(none, 'quiet'), '--input', 'x']);
    assert.equal(refused.code, 64, refused.stderr);
    assert.match(
      refused.stderr,
      /quiet\/workflow\.yaml: this workflow takes no input \(input\.mode: none\): leave out --input$/m,
    );
    const plain = await box.run([join(none, 'quiet')]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(plain.stdout.trim(), 'ok');
  });

  it('lint and diagram read the package as it runs: its three states, none of run.sh or SKILL.md', async () => {
    const lint = await box.run(['lint', PACKAGE]);
    assert.equal(lint.code, 0, lint.stderr + lint.stdout);
    assert.equal(lint.stdout.trim(), `${PACKAGE}: 0 errors, 0 warnings in 3 states`);
    const diagram = await box.run(['diagram', PACKAGE]);
    assert.equal(diagram.code, 0, diagram.stderr);
    assert.match(diagram.stdout, /start\(\("start"\)\)/);
    assert.match(diagram.stdout, /1_START_sh\["1_START\.sh"\]/);
    assert.doesNotMatch(diagram.stdout, /run_sh|SKILL/);
  });
});
