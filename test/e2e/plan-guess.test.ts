import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import { CLI, ROOT, Sandbox, raymond } from '../helpers/cli.js';
import type { WorkflowPlan } from '../../src/plan/workflow-plan.js';

const box = new Sandbox();
after(() => box.remove());

const REVIEW_LOOP = join(ROOT, 'workflows/examples/review-loop');

/** Every path under `dir`, to show that a command wrote nothing. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

describe('raymond plan without history', () => {
  it('prints each reachable state as a guess, the loop as unbounded, and no budget figure', async () => {
    const before = tree(box.dir);
    const r = await raymond(['plan', REVIEW_LOOP], { cwd: box.dir });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    const lines = r.stdout.split('\n');
    assert.match(lines[0]!, /^review-loop \(.*review-loop\): 3 reachable states, no history$/);
    const row = (state: string) => lines.find((l) => l.startsWith(`${state} `)) ?? '';
    // The entry first; REVIEW.md names haiku in its frontmatter.
    assert.ok(lines.indexOf(row('START.md')) < lines.indexOf(row('REVIEW.md')));
    assert.match(row('START.md'), /^START\.md +sonnet +guess +1 +\$0\.0\d+ +\$0\.\d+ +50s +2m30s$/);
    assert.match(row('REVIEW.md'), /^REVIEW\.md +haiku +guess +loop: unbounded +\$0\.00\d+ /);
    assert.match(row('REVISE.md'), /loop: unbounded/);
    assert.match(
      r.stdout,
      /^whole run: \$0\.\d+–unbounded \(p50–p90, a guess: no history\); time 2m30s–unbounded$/m,
    );
    assert.match(r.stdout, /^ {2}unbounded: REVIEW\.md \(a loop, never seen run\)$/m);
    assert.match(r.stdout, /^budget it would need: unbounded /m);
    assert.match(
      r.stdout,
      /^guesses: Claude prices of \d{4}-\d\d-\d\d, 5 model requests per step/m,
    );
    assert.deepEqual(tree(box.dir), before, 'plan writes nothing');
  });

  it('gives the same forecast as JSON, and counts --input into the entry prompt', async () => {
    const plain = await raymond(['plan', REVIEW_LOOP, '--json'], { cwd: box.dir });
    assert.equal(plain.code, 0, plain.stderr);
    const plan = JSON.parse(plain.stdout) as WorkflowPlan;
    assert.equal(plan.historyRuns, 0);
    assert.equal(plan.entry, 'START.md');
    assert.deepEqual(
      plan.states.map((s) => [s.state, s.kind, s.model, s.basis, s.visits.unbounded]),
      [
        ['START.md', 'markdown', 'sonnet', 'guess', null],
        ['REVIEW.md', 'markdown', 'haiku', 'guess', 'loop'],
        ['REVISE.md', 'markdown', 'sonnet', 'guess', 'loop'],
      ],
    );
    assert.equal(plan.run.basis, 'states');
    assert.equal(plan.run.costUsd.p90, null);
    assert.equal(plan.budgetUsd, null);
    const big = await raymond(['plan', REVIEW_LOOP, '--json', '--input', 'x'.repeat(40_000)], {
      cwd: box.dir,
    });
    const withInput = JSON.parse(big.stdout) as WorkflowPlan;
    // 10,000 more prompt tokens, five requests, at Sonnet's $2 per million input tokens.
    const more = withInput.states[0]!.costUsd.p50 - plan.states[0]!.costUsd.p50;
    assert.ok(Math.abs(more - 0.1) < 0.001, `the input added ${more}`);
  });

  it('needs no budget for a workflow of scripts, and follows a cross-workflow call into its callee', async () => {
    const r = await raymond(['plan', join(ROOT, 'workflows/examples/compose')], { cwd: box.dir });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^count-words:START\.sh +- +free +per worker: unbounded /m);
    assert.match(r.stdout, /^REPORT\.sh .*none seen: unbounded$/m);
    assert.match(r.stdout, /^whole run: \$0\.00–\$0\.00 \(p50–p90, scripts only: free\)/m);
    assert.match(r.stdout, /^budget it would need: none \(every state is a script: free\)$/m);
  });

  it('prices states that name no model with --model, else the project config’s model', async () => {
    const dispatch = join(ROOT, 'workflows/examples/dispatch');
    const models = async (args: string[], cwd: string) => {
      const r = await raymond(['plan', dispatch, '--json', ...args], { cwd });
      assert.equal(r.code, 0, r.stderr);
      return (JSON.parse(r.stdout) as WorkflowPlan).states.map((s) => [s.model, s.price]);
    };
    assert.deepEqual((await models([], box.dir))[0], [null, 'Claude Sonnet 5.5']);
    assert.deepEqual((await models(['--model', 'haiku'], box.dir))[0], [
      'haiku',
      'Claude Haiku 5.5',
    ]);
    const project = new Sandbox();
    try {
      project.write({ '.raymond/config.toml': '[raymond]\nmodel = "opus"\n' });
      assert.deepEqual((await models([], project.dir))[0], ['opus', 'Claude Opus 5.5']);
    } finally {
      project.remove();
    }
  });

  it("prices a model by the project config's [raymond.prices], as a run charges it", async () => {
    const project = new Sandbox();
    try {
      const wf = project.write(
        { 'workflow.yaml': 'backend: codex\n', 'START.md': '---\nmodel: house-model\n---\nHi' },
        'cdx',
      );
      const priced = async () => {
        const r = await raymond(['plan', wf, '--json'], { cwd: project.dir });
        assert.equal(r.code, 0, r.stderr);
        const [state] = (JSON.parse(r.stdout) as WorkflowPlan).states;
        return [state!.price, state!.costUsd.p50] as const;
      };
      const [unknown, free] = await priced();
      assert.equal(unknown, 'house-model (no price)');
      assert.equal(free, 0);
      project.write({
        '.raymond/config.toml': '[raymond.prices."house-model"]\ninput = 2\noutput = 10\n',
      });
      const [label, usd] = await priced();
      assert.equal(label, 'house-model (config price)');
      assert.ok(usd > 0, `a priced guess: ${usd}`);
    } finally {
      project.remove();
    }
  });

  it('refuses a path that is no workflow in one line', async () => {
    const r = await raymond(['plan', join(box.dir, 'nothing-here')], { cwd: box.dir });
    assert.equal(r.code, 64);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^raymond: .*nothing-here: no such file or directory\n$/);
  });

  it('prints the forecast in one line when a run starts on a terminal, and not in a pipe', async () => {
    const hello = join(ROOT, 'workflows/examples/hello');
    const tty = await execa(
      'script',
      ['-qfec', `${process.execPath} ${CLI} ${hello} --budget 2`, '/dev/null'],
      {
        cwd: box.dir,
        reject: false,
      },
    );
    assert.equal(tty.exitCode, 0, tty.stdout);
    assert.match(
      tty.stdout,
      /^raymond: forecast: \$0\.00–\$0\.00 \(scripts only: free\); budget \$2\.00\r?$/m,
    );
    const piped = await raymond([hello], { cwd: box.dir });
    assert.equal(piped.code, 0, piped.stderr);
    assert.doesNotMatch(piped.stderr + piped.stdout, /forecast:/);
  });
});
