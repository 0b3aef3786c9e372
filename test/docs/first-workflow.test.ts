import { strict as assert } from 'node:assert';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import { ROOT } from '../helpers/cli.js';
import { fences, readPage, type Fence } from '../helpers/doc-pages.js';

const PAGE = 'docs/first-workflow.md';

/** The page's walkthrough: each `run by` block with its role, and the text block that follows it (the output shown). */
function walkthrough(): Array<{ role: string; block: Fence; shown: Fence | undefined }> {
  const all = fences(readPage(PAGE));
  return all.flatMap((f, i) => {
    const role = f.marks
      .map((m) => /^run by: test\/docs\/first-workflow\.test\.ts \((\w+)\)$/.exec(m)?.[1])
      .find(Boolean);
    if (!role) return [];
    const next = all[i + 1];
    return [{ role, block: f, shown: next?.lang === 'text' ? next : undefined }];
  });
}

/**
 * Output as the page shows it: the reader's paths as /home/you/..., any port, run time and
 * timestamps as placeholders, lines sorted. Workers run side by side, so only each agent's own
 * lines keep their order: those sequences are compared apart.
 */
function normalize(
  text: string,
  paths: Record<string, string>,
): { lines: string[]; byAgent: Record<string, string[]> } {
  let t = text;
  for (const [from, to] of Object.entries(paths)) t = t.split(from).join(to);
  t = t
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT')
    .replace(/ in (\d+m)?[\d.]+s;/g, ' in TIMEs;')
    // The time column of --status's cost by state: right-aligned, so a longer time widens it.
    .replace(/(\d+%) +(\d+m)?[\d.]+s$/gm, '$1  TIMEs')
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIMESTAMP');
  const lines = t.split('\n').filter((l) => l.trim() !== '');
  const byAgent: Record<string, string[]> = {};
  for (const l of lines) {
    const agent = /^(?:warning: )?\[([\w-]+)\]/.exec(l)?.[1];
    if (agent) (byAgent[agent] ??= []).push(l);
  }
  return { lines: [...lines].sort(), byAgent };
}

describe('docs/first-workflow.md, followed as a newcomer would', () => {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'raymond-first-workflow-')));
  let model: ChildProcess | undefined;
  after(() => {
    if (model?.pid) process.kill(-model.pid, 'SIGTERM');
    rmSync(home, { recursive: true, force: true });
  });

  it(
    'its blocks, run in order with the practice model and the real claude, print what the page shows',
    { timeout: 240_000 },
    async () => {
      // The page's `~/raymond` is the clone; `~` is a scratch folder of the test's own.
      symlinkSync(ROOT, join(home, 'raymond'));
      const practice = join(home, 'practice');
      const paths = {
        [practice]: '/home/you/practice',
        [realpathSync(ROOT).replace(/\/$/, '')]: '/home/you/raymond',
      };
      const steps = walkthrough();
      assert.deepEqual(
        [...new Set(steps.map((s) => s.role))],
        ['files', 'model', 'run'],
        'the page: files, then the practice model, then runs',
      );
      const env = { ...process.env, HOME: home };

      const files = steps.filter((s) => s.role === 'files').map((s) => s.block.body);
      const made = await execa('bash', ['-ec', files.join('\n')], {
        cwd: home,
        env,
        reject: false,
        stdin: 'ignore',
      });
      assert.equal(made.exitCode, 0, String(made.stderr));

      // Terminal 1: the practice model, until it has printed the lines for terminal 2.
      const modelStep = steps.find((s) => s.role === 'model')!;
      model = spawn('bash', ['-c', modelStep.block.body], {
        cwd: home,
        env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let printed = '';
      await new Promise<void>((ok, fail) => {
        model!.stdout!.on('data', (d: Buffer) => {
          printed += String(d);
          if (/^raymond\(\) \{.*\}$/m.test(printed)) ok();
        });
        model!.on('exit', (code) =>
          fail(new Error(`the practice model exited ${code}: ${printed}`)),
        );
      });
      assert.ok(modelStep.shown, 'the page shows what the practice model prints');
      assert.deepEqual(
        normalize(printed, paths).lines,
        normalize(modelStep.shown.body, paths).lines,
      );
      const pasted = printed
        .split('\n')
        .filter((l) => l && !l.startsWith('#'))
        .join('\n');

      // Terminal 2: every later block in the same terminal, the lines pasted where the page says.
      for (const { block, shown } of steps.filter((s) => s.role === 'run')) {
        const body = block.body.includes('# paste the lines from terminal 1 here')
          ? block.body.replace(/^# paste the lines.*$/m, pasted)
          : `${pasted}\n${block.body}`;
        const r = await execa('bash', ['-c', `exec 2>&1\ncd "${practice}"\n${body}`], {
          cwd: practice,
          env,
          reject: false,
          stdin: 'ignore',
          timeout: 120_000,
        });
        const out = String(r.stdout);
        assert.equal(r.exitCode, 0, `${PAGE}:${block.line} exited ${r.exitCode}:\n${out}`);
        assert.ok(shown, `${PAGE}:${block.line}: the page shows its output`);
        const [got, want] = [normalize(out, paths), normalize(shown.body, paths)];
        assert.deepEqual(
          got.lines,
          want.lines,
          `${PAGE}:${block.line}: the output differs from the page:\n${out}`,
        );
        assert.deepEqual(
          got.byAgent,
          want.byAgent,
          `${PAGE}:${block.line}: an agent's lines come in another order`,
        );
      }
    },
  );
});
