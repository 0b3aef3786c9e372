import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import { CLI, Sandbox, sh } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

describe('the live view on a terminal', () => {
  it('draws a status area with counts, cost and rate while the run goes, then erases it', async () => {
    const forks = Array.from(
      { length: 12 },
      (_, i) => `<fork next=\\"END\\" i=\\"${i}\\">W</fork>`,
    ).join('');
    const wf = box.write(
      {
        'START.sh': sh(`echo "${forks}"`),
        'W.sh': sh('sleep 0.3', 'echo "<result>$i</result>"'),
        'END.sh': sh('echo "<result>end</result>"'),
      },
      'live',
    );
    // `script` gives the CLI a pseudo-terminal, as a user's shell would.
    const r = await execa(
      'script',
      [
        '-qfec',
        `stty cols 120 rows 30; ${process.execPath} ${CLI} ${wf} --max-parallel 3 --budget 0`,
        '/dev/null',
      ],
      { cwd: box.dir, reject: false },
    );
    assert.equal(r.exitCode, 0, r.stdout);
    const text = r.stdout.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
    assert.match(
      text,
      /raymond {2}\d+ running · \d+ idle · 0 awaiting · \d+ done · 0 paused {3}\$0\.00 \/ unlimited {3}\d+s {3}[\d.]+ steps\/s/,
    );
    assert.match(text, /\[main_w1\] W\.sh -> result: 0/);
    assert.ok(r.stdout.includes('\x1b[?25l'), 'the cursor is hidden while drawing');
    assert.ok(
      r.stdout.lastIndexOf('\x1b[?25h') > r.stdout.lastIndexOf('\x1b[?25l'),
      'and shown again at the end',
    );
    assert.match(
      text.trimEnd(),
      /\nend\r?\nrun \S+ completed: [^\n]*$/,
      'the result, then the summary, come last, after the status area is gone',
    );
    assert.ok(
      r.stdout.includes('\x1b]2;ray: START\x07') && r.stdout.includes('\x1b]2;ray: W\x07'),
      'the terminal title follows the state that started last, as in ray',
    );
  });

  it('lays the status area out for 80 columns: no figure is cut', async () => {
    const forks = Array.from(
      { length: 6 },
      (_, i) => `<fork next=\\"END\\" i=\\"${i}\\">W</fork>`,
    ).join('');
    const wf = box.write(
      {
        'START.sh': sh(`echo "${forks}"`),
        'W.sh': sh('sleep 0.4', 'echo "<result>$i</result>"'),
        'END.sh': sh('echo "<result>end</result>"'),
      },
      'narrow',
    );
    const r = await execa(
      'script',
      [
        '-qfec',
        `stty cols 80 rows 30; ${process.execPath} ${CLI} ${wf} --max-parallel 2 --budget 0`,
        '/dev/null',
      ],
      { cwd: box.dir, reject: false },
    );
    assert.equal(r.exitCode, 0, r.stdout);
    const lines = r.stdout.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').split(/\r?\n/);
    const counts = lines.filter((l) => l.startsWith('raymond  '));
    // The figures go on as many lines as 80 columns need, broken only between two of them.
    const figures = lines.filter((l) => /^(\$|\d+s )/.test(l));
    assert.ok(counts.length > 0 && figures.length > 0, r.stdout);
    for (const l of counts)
      assert.match(
        l,
        /^raymond {2}\d+ running · \d+ idle · 0 awaiting · \d+ done · 0 paused( {3}\$0\.00 \/ unlimited)?$/,
      );
    for (const l of figures)
      assert.match(l, /^(\$0\.00 \/ unlimited {3})?\d+s {3}[\d.]+ steps\/s$/);
    for (const l of [...counts, ...figures]) assert.ok(l.length <= 80, l);
  });

  it('keeps every status line within 50 columns with CJK state names, each CJK character taking two', async () => {
    const name = '処理中の状態名前がとても長いです';
    const forks = Array.from(
      { length: 4 },
      (_, i) => `<fork next=\\"END\\" i=\\"${i}\\">${name}</fork>`,
    ).join('');
    const wf = box.write(
      {
        'START.sh': sh(`echo "${forks}"`),
        [`${name}.sh`]: sh('sleep 0.4', 'echo "<result>$i</result>"'),
        'END.sh': sh('echo "<result>end</result>"'),
      },
      'cjk',
    );
    const r = await execa(
      'script',
      [
        '-qfec',
        `stty cols 50 rows 30; ${process.execPath} ${CLI} ${wf} --max-parallel 2 --budget 0`,
        '/dev/null',
      ],
      { cwd: box.dir, reject: false, env: { LANG: 'C.UTF-8' } },
    );
    assert.equal(r.exitCode, 0, r.stdout);
    // What was drawn in the status area: the lines between an erase (ESC [ n F ESC [ J) and the next one.
    const frames = r.stdout.split(/\x1b\[\d+F\x1b\[J/).slice(1);
    const drawn = frames
      .flatMap((f) => f.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07/g, '').split(/\r?\n/))
      .filter((l) => l.startsWith('  ') && l.includes('処理'));
    assert.ok(drawn.length > 0, r.stdout);
    const columns = (l: string) =>
      [...l].reduce((n, c) => n + (/[\u3000-\u9fff]/.test(c) ? 2 : 1), 0);
    for (const l of drawn) assert.ok(columns(l) <= 50, `${l}: ${columns(l)} columns`);
  });

  it('prints plain lines on a terminal that says TERM=dumb', async () => {
    const wf = box.write(
      { 'START.sh': sh('echo "<goto>END</goto>"'), 'END.sh': sh('echo "<result>dumb</result>"') },
      'dumb',
    );
    const r = await execa(
      'script',
      ['-qfec', `stty cols 80 rows 30; ${process.execPath} ${CLI} ${wf}`, '/dev/null'],
      { cwd: box.dir, reject: false, env: { TERM: 'dumb' } },
    );
    assert.equal(r.exitCode, 0, r.stdout);
    assert.doesNotMatch(r.stdout, /\x1b[[\]]/, 'no escape sequences, no title');
    assert.match(r.stdout, /^\[main\] running START\.sh\r?$/m);
    assert.match(r.stdout, /^\[main\] START\.sh -> goto END\.sh\r?$/m);
  });

  it('prints plain lines when stderr is not a terminal', async () => {
    const wf = box.write({ 'START.sh': sh('echo "<result>plain</result>"') }, 'plain');
    const r = await box.run([wf]);
    assert.doesNotMatch(r.stderr, /\x1b\[/);
    assert.match(r.stderr, /^\[main\] running START\.sh$/m);
  });
});
