import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RunCosts, WorkflowStats } from '../../../src/history/history-stats.js';
import type { StepRecord } from '../../../src/history/history-types.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';
import { raymond, summary } from '../../helpers/cli.js';

/** START forks `n` workers, one real Claude Code turn each on sonnet, haiku when sonnet is overloaded. */
function fanOut(n: number, frontmatter: string): Record<string, string> {
  const forks = Array.from({ length: n }, (_, i) => `<fork n="${i}">WORKER.md</fork>`);
  return {
    'START.sh': `#!/usr/bin/env bash\ncat <<'EOF'\n${forks.join('\n')}\n<goto>DONE.sh</goto>\nEOF\n`,
    'WORKER.md': `---\n${frontmatter}---\nWorker {{n}}: say the word.`,
    'DONE.sh': '#!/usr/bin/env bash\necho "<result>all forked</result>"\n',
  };
}

/** The run's step records of WORKER.md, from the history. */
function workerSteps(dir: string, run: string): StepRecord[] {
  const root = join(dir, '.raymond', 'history');
  return readdirSync(root)
    .flatMap((key) => {
      try {
        return readFileSync(join(root, key, 'steps.jsonl'), 'utf8')
          .trim()
          .split('\n');
      } catch {
        return [];
      }
    })
    .map((l) => JSON.parse(l) as StepRecord)
    .filter((r) => r.run === run && r.state === 'WORKER.md');
}

describe('fallback_models (real claude, a scripted API whose sonnet is overloaded for a while)', () => {
  const box = new ClaudeSandbox();
  before(async () => {
    await box.start();
    box.server.on(/^Worker (\d+)/, (r) => ({
      text: `<result>worker ${/^Worker (\d+)/.exec(r.prompt)![1]} done by ${r.model}</result>`,
      delayMs: 300,
    }));
  });
  after(() => box.stop());

  it('during a 529 burst each turn is answered by haiku, priced at haiku; the history, stats and --status show the split', async (t) => {
    // Sonnet answers 4 workers, then is overloaded for 15 s: the workers that start then go on with haiku.
    box.server.overload('sonnet', 4, 15_000);
    const wf = box.write(fanOut(16, 'model: sonnet\nfallback_models: [haiku]\n'), 'burst');
    const r = await raymond(
      [wf, '--json', '--workflow-id', 'burst-run', '--max-parallel', '4', '--verbose'],
      { cwd: box.dir, env: box.env(), timeoutMs: 300_000 },
    );
    t.diagnostic(`${box.server.overloaded} refused 529, ${box.server.served} served`);
    assert.equal(r.code, 0, r.stderr.slice(-3000));
    const results = Object.entries(summary(r).results).filter(([id]) => id !== 'main');
    assert.equal(results.length, 16);
    const byHaiku = results.filter(([, v]) => /done by claude-haiku/.test(v)).length;
    const bySonnet = results.filter(([, v]) => /done by claude-sonnet/.test(v)).length;
    assert.equal(byHaiku + bySonnet, 16);
    assert.ok(byHaiku >= 4 && bySonnet >= 4, `${byHaiku} by haiku, ${bySonnet} by sonnet`);
    assert.ok(box.server.overloaded > 0);
    assert.match(
      r.stderr,
      /claude-sonnet\S* is overloaded; claude-haiku\S* answers \(fallback_models\)/,
    );

    // The history names the model that answered each step; a step's cost is its own model's price.
    const steps = workerSteps(box.dir, 'burst-run');
    assert.equal(steps.length, 16);
    const haiku = steps.filter((s) => s.answeredBy?.some((m) => /haiku/.test(m)));
    assert.equal(haiku.length, byHaiku);
    const cost = (m: RegExp) => [
      ...new Set(steps.filter((s) => m.test(s.answeredBy!.at(-1)!)).map((s) => s.costUsd)),
    ];
    const [haikuCost, sonnetCost] = [cost(/haiku/), cost(/sonnet/)];
    assert.equal(haikuCost.length, 1, `haiku steps cost ${haikuCost.join(', ')}`);
    assert.equal(sonnetCost.length, 1, `sonnet steps cost ${sonnetCost.join(', ')}`);
    assert.ok(haikuCost[0]! < sonnetCost[0]!, `haiku ${haikuCost[0]} vs sonnet ${sonnetCost[0]}`);
    const state = box.state('burst-run');
    const total = steps.reduce((a, s) => a + s.costUsd, 0);
    assert.ok(Math.abs(state.total_cost_usd - total) < 1e-9, `${state.total_cost_usd} vs ${total}`);
    assert.ok(
      Math.abs(total - (byHaiku * haikuCost[0]! + bySonnet * sonnetCost[0]!)) < 1e-9,
      'the run costs each turn at the model that answered it',
    );

    const split = (counts: Record<string, number> | undefined) =>
      Object.entries(counts ?? {})
        .map(([m, n]) => `${/haiku/.test(m) ? 'haiku' : 'sonnet'} ${n}`)
        .sort()
        .join(', ');
    const want = `haiku ${byHaiku}, sonnet ${bySonnet}`;
    const got = await raymond(['stats', wf, '--json'], { cwd: box.dir, env: box.env() });
    assert.equal(got.code, 0, got.stderr);
    const stats = JSON.parse(got.stdout) as WorkflowStats;
    assert.equal(split(stats.states.find((s) => s.state === 'WORKER.md')!.answeredBy), want);
    const run = JSON.parse(
      (await raymond(['stats', 'burst-run', '--json'], { cwd: box.dir, env: box.env() })).stdout,
    ) as RunCosts;
    assert.equal(split(run.byState.find((s) => s.name === 'WORKER.md')!.answeredBy), want);
    const status = await raymond(['--status', 'burst-run'], { cwd: box.dir, env: box.env() });
    assert.match(status.stdout, /answered by/);
    assert.match(status.stdout, new RegExp(`WORKER\\.md .*claude-haiku\\S* ${byHaiku}`));
  });

  it('lint refuses a fallback model of another backend', async () => {
    const wf = box.write(fanOut(1, 'fallback_models: [openai/gpt-5]\n'), 'other');
    const r = await raymond(['lint', wf], { cwd: box.dir, env: box.env() });
    assert.notEqual(r.code, 0);
    assert.match(r.stdout + r.stderr, /WORKER\.md.*fallback_models: model "openai\/gpt-5" is not/);
  });
});
