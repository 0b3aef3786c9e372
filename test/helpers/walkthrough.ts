import { strict as assert } from 'node:assert';
import { type ChildProcess, spawn } from 'node:child_process';
import { realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { ROOT } from './cli.js';
import { fences, readPage, type Fence } from './doc-pages.js';

/** A page's walkthrough: each `run by: TEST (role)` block with its role, and the text block that follows it (the output shown). */
function walkthrough(
  page: string,
  test: string,
): Array<{ role: string; block: Fence; shown: Fence | undefined }> {
  const all = fences(readPage(page));
  const mark = `run by: ${test} (`;
  return all.flatMap((f, i) => {
    const role = f.marks
      .map((m) => (m.startsWith(mark) ? /\((\w+)\)$/.exec(m)?.[1] : undefined))
      .find(Boolean);
    if (!role) return [];
    const next = all[i + 1];
    return [{ role, block: f, shown: next?.lang === 'text' ? next : undefined }];
  });
}

/**
 * Output as the pages show it: the reader's paths as /home/you/..., any port, run time and
 * timestamps as placeholders, lines sorted. Workers run side by side, so only each agent's own
 * lines keep their order: those sequences are compared apart.
 */
function normalize(
  text: string,
  paths: Array<[string, string]>,
): { lines: string[]; byAgent: Record<string, string[]> } {
  let t = text;
  for (const [from, to] of paths) t = t.split(from).join(to);
  t = t
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT')
    .replace(/ in (\d+m)?[\d.]+s;/g, ' in TIMEs;')
    // The time column of --status's cost by state: right-aligned, so a longer time widens it.
    .replace(/(\d+%) +(\d+m)?[\d.]+s( {2}|$)/gm, '$1  TIMEs$3')
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIMESTAMP');
  const lines = t.split('\n').filter((l) => l.trim() !== '');
  const byAgent: Record<string, string[]> = {};
  for (const l of lines) {
    const agent = /^(?:warning: )?\[([\w-]+)\]/.exec(l)?.[1];
    if (agent) (byAgent[agent] ??= []).push(l);
  }
  return { lines: [...lines].sort(), byAgent };
}

/**
 * Follows a page's walkthrough as a newcomer would, in `home` (the page's `~`, with the clone
 * at `~/raymond`): the `files` blocks, then terminal 1's `model` block (the practice model, until
 * it prints the lines for terminal 2), then each `run` block in a fresh shell of terminal 2, with
 * those lines pasted where the page says. Each output must be the text block the page shows.
 * `onModel` gets the practice model's process, for the caller to stop.
 */
export async function followWalkthrough(o: {
  page: string;
  test: string;
  home: string;
  /** The folder terminal 2 works in (its first block goes there). */
  folder: string;
  onModel: (model: ChildProcess) => void;
}): Promise<void> {
  const { page, test, home } = o;
  symlinkSync(ROOT, join(home, 'raymond'));
  const paths: Array<[string, string]> = [
    [realpathSync(ROOT).replace(/\/$/, ''), '/home/you/raymond'],
    [home, '/home/you'],
  ];
  const steps = walkthrough(page, test);
  assert.deepEqual(
    [...new Set(steps.map((s) => s.role))],
    ['files', 'model', 'run'],
    `${page}: files, then the practice model, then runs`,
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
  const model = spawn('bash', ['-c', modelStep.block.body], {
    cwd: home,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  o.onModel(model);
  let printed = '';
  await new Promise<void>((ok, fail) => {
    model.stdout.on('data', (d: Buffer) => {
      printed += String(d);
      if (/^export PATH=.*\$PATH$/m.test(printed)) ok();
    });
    model.on('exit', (code) => fail(new Error(`the practice model exited ${code}: ${printed}`)));
  });
  assert.ok(modelStep.shown, `${page}: the page shows what the practice model prints`);
  assert.deepEqual(normalize(printed, paths).lines, normalize(modelStep.shown.body, paths).lines);
  const pasted = printed
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .join('\n');

  // Terminal 2: every later block, the lines pasted where the page says (else first).
  for (const { block, shown } of steps.filter((s) => s.role === 'run')) {
    const body = block.body.includes('# paste the lines from terminal 1 here')
      ? block.body.replace(/^# paste the lines.*$/m, pasted)
      : `${pasted}\n${block.body}`;
    // One terminal: each block goes on in the folder the page went to.
    const r = await execa('bash', ['-c', `exec 2>&1\ncd "${o.folder}"\n${body}`], {
      cwd: home,
      env,
      reject: false,
      stdin: 'ignore',
      timeout: 180_000,
    });
    const out = String(r.stdout);
    assert.equal(r.exitCode, 0, `${page}:${block.line} exited ${r.exitCode}:\n${out}`);
    assert.ok(shown, `${page}:${block.line}: the page shows its output`);
    const [got, want] = [normalize(out, paths), normalize(shown.body, paths)];
    assert.deepEqual(
      got.lines,
      want.lines,
      `${page}:${block.line}: the output differs from the page:\n${out}`,
    );
    assert.deepEqual(
      got.byAgent,
      want.byAgent,
      `${page}:${block.line}: an agent's lines come in another order`,
    );
  }
}
