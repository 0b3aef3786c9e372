import assert from 'node:assert/strict';
import { existsSync, readdirSync, symlinkSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { join } from 'node:path';
import { alive, Sandbox, sh, summary, type CliResult } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

/** A user mistake: one `raymond:` line naming the file, no stack trace. */
function assertOneLineError(r: CliResult, code: number, pattern: RegExp): void {
  assert.equal(r.code, code, `exit code; stderr:\n${r.stderr}`);
  const errors = r.stderr.split('\n').filter((l) => l.startsWith('raymond: '));
  assert.equal(errors.length, 1, `exactly one error line in:\n${r.stderr}`);
  assert.match(errors[0]!, pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at .*:\d+:\d+/, 'no stack trace');
}

describe('user mistakes before the run', () => {
  it('a missing path exits 64 and names it', async () => {
    const r = await box.run(['nope/missing.md']);
    assertOneLineError(r, 64, /^raymond: nope\/missing\.md: no such file or directory$/);
  });

  it('a folder with both 1_START and START exits 64, and writes no state file', async () => {
    const wf = box.write(
      { '1_START.sh': sh('echo "<result>a</result>"'), 'START.md': 'x' },
      'two-entries',
    );
    const r = await box.run([wf, '--state-dir', 'st-two']);
    assertOneLineError(r, 64, /two-entries: several entry states \(1_START\.sh, START\.md\)/);
    assert.equal(
      existsSync(join(box.dir, 'st-two')) && readdirSync(join(box.dir, 'st-two')).length > 0,
      false,
    );
  });

  it('a folder without an entry exits 64', async () => {
    const wf = box.write({ 'OTHER.sh': sh('echo "<result>a</result>"') }, 'no-entry');
    assertOneLineError(
      await box.run([wf]),
      64,
      /no-entry: no entry state: expected 1_START or START/,
    );
  });

  it('an entry with two extensions is ambiguous', async () => {
    const wf = box.write(
      { 'START.sh': sh('echo "<result>a</result>"'), 'START.md': 'x' },
      'amb-entry',
    );
    assertOneLineError(await box.run([wf]), 64, /several entry states \(START\.md, START\.sh\)/);
  });

  it('a file that is not a state exits 64', async () => {
    box.write({ 'notes.txt': 'hi' });
    assertOneLineError(await box.run(['notes.txt']), 64, /notes\.txt: not a workflow/);
  });

  it('a non-UTF-8 or unreadable prompt file is refused before anything is written', async () => {
    const wf = box.write(
      {
        'START.sh': sh('echo "<goto>ASK</goto>"'),
        'ASK.md': Buffer.from([0x48, 0x69, 0xff, 0xfe]),
      },
      'latin',
    );
    const r = await box.run([wf, '--state-dir', 'st-latin']);
    assertOneLineError(r, 64, /latin\/ASK\.md: is not valid UTF-8 text; save it as UTF-8$/);
    assert.equal(existsSync(join(box.dir, 'st-latin')), false);
    const broken = box.write({ 'START.sh': sh('echo "<result>x</result>"') }, 'dangling');
    symlinkSync(join(broken, 'nowhere.md'), join(broken, 'GONE.md'));
    const r2 = await box.run([broken, '--state-dir', 'st-dangling']);
    assertOneLineError(r2, 64, /dangling\/GONE\.md: cannot read: ENOENT$/);
    assert.equal(existsSync(join(box.dir, 'st-dangling')), false);
  });

  it('bad options exit 64', async () => {
    const wf = box.write({ 'START.sh': sh('echo "<result>a</result>"') }, 'opts');
    for (const args of [
      ['--max-parallel', '0'],
      ['--timeout', 'soon'],
      ['--frobnicate'],
      ['--workflow-id', 'bad id!'],
    ]) {
      const r = await box.run([wf, ...args]);
      assert.equal(r.code, 64, `${args.join(' ')}: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /\n\s+at /);
    }
  });

  it('reusing a workflow id is refused and the old state file is untouched', async () => {
    const wf = box.write({ 'START.sh': sh('echo "<result>first</result>"') }, 'reuse');
    assert.equal((await box.run([wf, '--workflow-id', 'same'])).code, 0);
    const before = box.read('.raymond/state/same.json');
    const r = await box.run([wf, '--workflow-id', 'same']);
    assertOneLineError(r, 64, /a run with id "same" already exists/);
    assert.equal(box.read('.raymond/state/same.json'), before);
  });

  it('--json reports a start-up error as JSON too', async () => {
    const r = await box.run(['missing-dir', '--json']);
    assert.equal(r.code, 64);
    assert.deepEqual(summary(r), {
      workflow_id: null,
      status: 'failed',
      total_cost_usd: 0,
      results: {},
      permission_denials: [],
      error: 'missing-dir: no such file or directory',
    });
  });
});

describe('the command line', () => {
  it("every mistake, commander's or Raymond's, is one `raymond:` line with the way to help, exit 64", async () => {
    const cases: Array<[string[], RegExp]> = [
      [
        ['--frobnicate'],
        /^raymond: unknown option '--frobnicate' \(run raymond --help for usage\)$/,
      ],
      [
        ['--budget', 'x'],
        /^raymond: option '--budget <usd>' argument 'x' is invalid\. expected an amount in USD, 0 or more \(0 = unlimited\) \(run raymond --help for usage\)$/,
      ],
      [
        ['a', 'b'],
        /^raymond: too many arguments\. Expected 1 argument but got 2\. \(run raymond --help for usage\)$/,
      ],
      [
        ['lint'],
        /^raymond: missing required argument 'path' \(run raymond lint --help for usage\)$/,
      ],
      [
        ['--list', '--recover'],
        /^raymond: --list and --recover cannot be combined \(run raymond --help for usage\)$/,
      ],
    ];
    for (const [args, pattern] of cases) {
      const r = await box.run(args);
      assert.equal(r.code, 64, args.join(' '));
      assert.equal(r.stderr.split('\n').length, 2, `one line for ${args.join(' ')}:\n${r.stderr}`);
      assert.match(r.stderr.trimEnd(), pattern);
    }
  });

  it("raymond help lint shows the lint command's help", async () => {
    const r = await box.run(['help', 'lint']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Usage: raymond lint \[options\] <path>$/m);
  });

  it('with --json, an error is a JSON object on stdout too, and the exit code stays 64', async () => {
    const status = await box.run(['--status', 'nope', '--json']);
    assert.equal(status.code, 64);
    assert.deepEqual(JSON.parse(status.stdout), {
      error: `${join(box.dir, '.raymond/state/nope.json')}: no run with id "nope" here (see raymond --list, or give --state-dir)`,
      code: 'ERR_STATE_FILE',
    });
    assertOneLineError(status, 64, /no run with id "nope" here/);
    const lint = await box.run(['lint', 'nope', '--json']);
    assert.equal(lint.code, 64);
    assert.deepEqual(JSON.parse(lint.stdout), {
      error: 'nope: no such file or directory',
      code: 'ERR_SCOPE',
    });
    const usage = await box.run(['--frobnicate', '--json']);
    assert.equal(usage.code, 64);
    assert.deepEqual(JSON.parse(usage.stdout), {
      error: "unknown option '--frobnicate' (run raymond --help for usage)",
      code: 'ERR_USAGE',
    });
  });
});

describe('failures during the run', () => {
  async function failing(
    name: string,
    files: Record<string, string>,
    pattern: RegExp,
    extra: string[] = [],
  ): Promise<CliResult> {
    const wf = box.write(files, name);
    const r = await box.run([wf, '--json', '--workflow-id', name, ...extra]);
    assert.equal(r.code, 1, r.stderr);
    const s = summary(r);
    assert.equal(s.status, 'failed');
    assert.match(s.error!, pattern);
    assertOneLineError(r, 1, pattern);
    const state = box.state(name);
    assert.equal(state.status, 'failed');
    assert.match(state.error!, pattern);
    return r;
  }

  it('a target with a path is refused before any file is touched', async () => {
    await failing(
      'traversal',
      { 'START.sh': sh('echo "<goto>../START.sh</goto>"') },
      /traversal\/START\.sh: <goto> target "\.\.\/START\.sh" is a path/,
    );
  });

  it('a backslash target is refused', async () => {
    await failing('backslash', { 'START.sh': sh('echo "<goto>..\\\\evil</goto>"') }, /is a path/);
  });

  it('a missing target names the state and the scope', async () => {
    await failing(
      'missing',
      { 'START.sh': sh('echo "<goto>NOWHERE</goto>"') },
      /missing\/START\.sh: target "NOWHERE" matches no state in .*missing \(looked for NOWHERE\.md, NOWHERE\.sh\)/,
    );
  });

  it('an explicit extension must exist as written', async () => {
    await failing(
      'explicit',
      { 'START.sh': sh('echo "<goto>NEXT.md</goto>"'), 'NEXT.sh': sh('echo "<result>x</result>"') },
      /target "NEXT\.md" does not exist/,
    );
  });

  it('a target with both .md and .sh is ambiguous', async () => {
    await failing(
      'ambiguous',
      {
        'START.sh': sh('echo "<goto>NEXT</goto>"'),
        'NEXT.sh': sh('echo "<result>x</result>"'),
        'NEXT.md': 'prompt',
      },
      /target "NEXT" is ambiguous: NEXT\.md and NEXT\.sh both exist/,
    );
  });

  it('a script exiting non-zero shows its exit code and the end of its stderr', async () => {
    await failing(
      'nonzero',
      { 'START.sh': sh('echo "first problem" >&2', 'echo "disk on fire" >&2', 'exit 3') },
      /nonzero\/START\.sh: exited with code 3; stderr: first problem \| disk on fire/,
    );
  });

  it('a script with no tag shows what it printed', async () => {
    await failing(
      'notag',
      { 'START.sh': sh('echo "all done, nothing to add"') },
      /notag\/START\.sh: output has no transition tag .*; its output ended with: all done, nothing to add/,
    );
  });

  it('a script with two tags is refused', async () => {
    await failing(
      'twotags',
      { 'START.sh': sh('echo "<goto>A</goto> <goto>B</goto>"') },
      /output has 2 transition tags/,
    );
  });

  it('a cd to a missing directory is refused', async () => {
    await failing(
      'badcd',
      { 'START.sh': sh('echo "<reset cd=\\"no/such/dir\\">START</reset>"') },
      /badcd\/START\.sh: cd="no\/such\/dir" is not a directory/,
    );
  });

  it('a script that prints nothing for --timeout seconds is killed with its whole process group', async () => {
    const started = Date.now();
    await failing(
      'timeout',
      {
        'START.sh': sh(
          '(sleep 30; echo late > "$PWD/orphan-survived") &',
          'echo $! > child.pid',
          'sleep 30',
          'echo "<result>never</result>"',
        ),
      },
      /timeout\/START\.sh: printed nothing for 1 s and was killed \(--timeout\)/,
      ['--timeout', '1'],
    );
    assert.ok(Date.now() - started < 15_000, 'the run ended soon after the timeout');
    const pid = Number(box.read('child.pid').trim());
    assert.equal(alive(pid), false, 'the background child of the script was killed too');
  });

  it('a failure stops the other agents and leaves them where they were', async () => {
    await failing(
      'stopothers',
      {
        'START.sh': sh('echo "<fork next=\\"BOOM\\">SLOW</fork>"'),
        'SLOW.sh': sh('sleep 20 & echo $! > slow.pid', 'wait', 'echo "<result>slow</result>"'),
        'BOOM.sh': sh('sleep 0.5', 'exit 7'),
      },
      /BOOM\.sh: exited with code 7/,
    );
    const slow = box.state('stopothers').agents.find((a) => a.id === 'main_slow1')!;
    assert.equal(slow.status, 'active');
    assert.equal(slow.state, 'SLOW.sh');
    const pid = Number(box.read('slow.pid').trim());
    assert.equal(alive(pid), false, "the stopped agent's process group was killed");
  });
});
