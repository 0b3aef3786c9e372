import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import { CLI, Sandbox, sh, summary } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

/** A run that stops at a failing script; fixing the script makes it resumable to the end. */
function flaky(name: string): string {
  return box.write(
    {
      'START.sh': sh(
        'echo "<fork next=\\"MIDDLE\\" n=\\"1\\">W</fork><fork next=\\"MIDDLE\\" n=\\"2\\">W</fork>"',
      ),
      'W.sh': sh('echo "<result>w$n</result>"'),
      'MIDDLE.sh': sh(
        '[ -f "$RAYMOND_WORKFLOW_ID.ok" ] || { echo "not yet" >&2; exit 9; }',
        'echo "<goto input=\\"fine\\">END</goto>"',
      ),
      'END.sh': sh('echo "<result>end $RAYMOND_INPUT</result>"'),
    },
    name,
  );
}

describe('raymond --resume', () => {
  it('continues a failed run where it stopped and never re-runs completed steps', async () => {
    const wf = flaky('resume1');
    const first = await box.run([
      wf,
      '--json',
      '--workflow-id',
      'r1',
      '--max-parallel',
      '1',
      '--timeout',
      '30',
      '--budget',
      '5',
    ]);
    assert.equal(first.code, 1);
    assert.match(first.stderr, /resume with: raymond --resume r1/);
    assert.deepEqual(summary(first).results, { main_w1: 'w1', main_w2: 'w2' });
    writeFileSync(join(box.dir, 'r1.ok'), '');
    const second = await box.run(['--resume', 'r1', '--json']);
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(summary(second).results, { main_w1: 'w1', main_w2: 'w2', main: 'end fine' });
    assert.doesNotMatch(
      second.stderr,
      /running (START|W)\.sh/,
      'completed steps were not run again',
    );
    const state = box.state('r1');
    assert.equal(state.status, 'completed');
    assert.deepEqual(
      state.options,
      {
        timeout_seconds: 30,
        max_parallel: 1,
        budget_usd: 5,
        model: null,
        effort: null,
        dangerously_skip_permissions: false,
        worktrees: 'keep-ignored',
        task_folder_pattern: '.raymond/tasks/{workflow_id}/{agent_id}',
        on_ask: 'reject',
      },
      'options came back from the state file',
    );
  });

  it('options given again on the command line win', async () => {
    const wf = flaky('resume2');
    assert.equal((await box.run([wf, '--workflow-id', 'r2', '--budget', '5'])).code, 1);
    writeFileSync(join(box.dir, 'r2.ok'), '');
    assert.equal(
      (await box.run(['--resume', 'r2', '--budget', '7', '--max-parallel', '3'])).code,
      0,
    );
    const o = box.state('r2').options;
    assert.equal(o.budget_usd, 7);
    assert.equal(o.max_parallel, 3);
  });

  it('refuses a run that another process holds, naming the process; takes over a dead one’s lock', async () => {
    const wf = box.write({ 'START.sh': sh('sleep 30', 'echo "<result>x</result>"') }, 'locked');
    const holder = execa(process.execPath, [CLI, wf, '--workflow-id', 'held'], {
      cwd: box.dir,
      reject: false,
      stdin: 'ignore',
    });
    const lock = join(box.dir, '.raymond/state/held.lock');
    const stateFile = join(box.dir, '.raymond/state/held.json');
    for (let i = 0; i < 100 && !(readFileSafe(lock) && readFileSafe(stateFile)); i++)
      await sleep(50);
    const before = readFileSync(join(box.dir, '.raymond/state/held.json'), 'utf8');
    const r = await box.run(['--resume', 'held']);
    assert.equal(r.code, 64);
    assert.match(
      r.stderr,
      new RegExp(
        `^raymond: .*held\\.lock: run held is in use by process ${holder.pid} \\(since .*\\); wait for it or stop it first$`,
        'm',
      ),
    );
    assert.equal(
      readFileSync(join(box.dir, '.raymond/state/held.json'), 'utf8'),
      before,
      'no change to the state file',
    );
    holder.kill('SIGKILL');
    await holder;
    assert.ok(readFileSafe(lock), 'the dead holder left its lock behind');
    writeFileSync(join(box.dir, 'locked/START.sh'), sh('echo "<result>x</result>"'));
    const again = await box.run(['--resume', 'held', '--allow-changes', '--json']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(readFileSafe(lock), undefined, 'the lock is released at the end');
  });

  it(
    'takes over a lock whose pid now belongs to another process',
    { skip: !existsSync('/proc/self/stat') },
    async () => {
      const wf = flaky('reused');
      assert.equal((await box.run([wf, '--workflow-id', 'reused'])).code, 1);
      writeFileSync(join(box.dir, 'reused.ok'), '');
      // The pid is alive (this test process), but it is not the process that took the lock.
      const lock = join(box.dir, '.raymond/state/reused.lock');
      writeFileSync(
        lock,
        JSON.stringify({
          pid: process.pid,
          host: hostname(),
          started_at: '2026-01-01T00:00:00.000Z',
          process_start: 'another-boot/12345',
        }),
      );
      const r = await box.run(['--resume', 'reused', '--json']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(summary(r).results.main, 'end fine');
      assert.equal(readFileSafe(lock), undefined, 'the lock is released at the end');
    },
  );

  it('refuses a lock of another host, naming it and how to override, and changes nothing', async () => {
    const wf = flaky('foreign');
    assert.equal((await box.run([wf, '--workflow-id', 'foreign'])).code, 1);
    writeFileSync(join(box.dir, 'foreign.ok'), '');
    const lock = join(box.dir, '.raymond/state/foreign.lock');
    const text = JSON.stringify({
      pid: 4242,
      host: 'build-07.example',
      started_at: '2026-01-01T00:00:00.000Z',
    });
    writeFileSync(lock, text);
    const before = readFileSync(join(box.dir, '.raymond/state/foreign.json'), 'utf8');
    const r = await box.run(['--resume', 'foreign']);
    assert.equal(r.code, 64);
    assert.equal(
      r.stderr,
      `raymond: ${lock}: run foreign is locked by process 4242 on host "build-07.example" (since 2026-01-01T00:00:00.000Z); Raymond cannot see that host's processes: if the run no longer runs there, delete this lock file and try again\n`,
    );
    assert.equal(readFileSync(lock, 'utf8'), text, 'the lock is kept');
    assert.equal(
      readFileSync(join(box.dir, '.raymond/state/foreign.json'), 'utf8'),
      before,
      'no change to the state file',
    );
    const list = await box.run(['--list']);
    assert.match(
      list.stdout,
      /^foreign {2}failed \(locked by pid 4242 on host build-07\.example\) /m,
    );
    assert.doesNotMatch((await box.run(['--recover'])).stdout, /foreign/, 'not offered for resume');
    rmSync(lock);
    assert.equal((await box.run(['--resume', 'foreign'])).code, 0);
  });

  it('removes the temporary files a dead writer left beside the state file, and no other file', async () => {
    const wf = flaky('temps');
    const dir = join(box.dir, '.raymond/state');
    // A run that died writing its first snapshot leaves no state file, so its id may be taken again.
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'temps.json.999'), '{"half');
    assert.equal((await box.run([wf, '--workflow-id', 'temps'])).code, 1);
    assert.equal(existsSync(join(dir, 'temps.json.999')), false, 'removed by a new run of that id');
    writeFileSync(join(box.dir, 'temps.ok'), '');
    const leftovers = ['temps.json.12345', 'temps.json.4294967295'];
    const others = ['temps.json.bak', 'temps.json.12a', 'temps2.json.12345', 'other.json.77'];
    for (const name of [...leftovers, ...others])
      writeFileSync(join(dir, name), '{"half": "written');
    const r = await box.run(['--resume', 'temps']);
    assert.equal(r.code, 0, r.stderr);
    for (const name of leftovers)
      assert.equal(existsSync(join(dir, name)), false, `${name} removed`);
    for (const name of others) assert.equal(existsSync(join(dir, name)), true, `${name} kept`);
  });

  it('refuses to resume a workflow edited or removed since the run started, unless --allow-changes', async () => {
    const wf = flaky('edited');
    assert.equal((await box.run([wf, '--workflow-id', 'ed'])).code, 1);
    writeFileSync(join(wf, 'END.sh'), sh('echo "<result>changed</result>"'));
    const before = readFileSync(join(box.dir, '.raymond/state/ed.json'), 'utf8');
    const r = await box.run(['--resume', 'ed']);
    assert.equal(r.code, 64);
    assert.match(
      r.stderr,
      /^raymond: .*edited\/END\.sh: END\.sh was edited since run ed started; restore it, or resume with --allow-changes/m,
    );
    assert.equal(readFileSync(join(box.dir, '.raymond/state/ed.json'), 'utf8'), before);
    writeFileSync(join(box.dir, 'ed.ok'), '');
    const ok = await box.run(['--resume', 'ed', '--allow-changes', '--json']);
    assert.equal(summary(ok).results.main, 'changed');
  });

  it('bad state files give one line, exit 64, and no change', async () => {
    const dir = join(box.dir, '.raymond/state');
    const cases: Array<[string, string, RegExp]> = [
      [
        'truncated',
        '{"version": 1, "workflow_id": "trunc',
        /not valid JSON \(corrupt or truncated\)/,
      ],
      [
        'future',
        JSON.stringify({ version: 7, workflow_id: 'future', agents: [] }),
        /state file version 7 is not one this build knows/,
      ],
      [
        'damaged',
        JSON.stringify({
          version: 1,
          workflow_id: 'damaged',
          agents: [{ id: 'main' }],
          scope: {},
          options: {},
        }),
        /the state file is damaged/,
      ],
    ];
    for (const [id, text, pattern] of cases) {
      writeFileSync(join(dir, `${id}.json`), text);
      const r = await box.run(['--resume', id]);
      assert.equal(r.code, 64, id);
      assert.match(r.stderr, pattern);
      assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
      assert.equal(readFileSync(join(dir, `${id}.json`), 'utf8'), text);
    }
    const missing = await box.run(['--resume', 'nosuchrun']);
    assert.equal(missing.code, 64);
    assert.match(
      missing.stderr,
      /no run with id "nosuchrun" here \(see raymond --list, or give --state-dir\)/,
    );
  });

  it('a journal line that is JSON but not a record gives one line naming the journal and line, exit 64, and no change', async () => {
    const wf = flaky('badjournal');
    assert.equal((await box.run([wf, '--workflow-id', 'bj'])).code, 1);
    const snapshot = join(box.dir, '.raymond/state/bj.json');
    const journal = join(box.dir, '.raymond/state/bj.journal');
    const before = readFileSync(snapshot, 'utf8');
    const seq = (JSON.parse(before) as { journal_seq?: number }).journal_seq ?? 0;
    const good = JSON.stringify({
      seq: seq + 1,
      meta: {
        status: 'failed',
        total_cost_usd: 0,
        updated_at: '2026-01-01T00:00:00.000Z',
        options: {},
      },
    });
    for (const bad of [
      '5',
      'null',
      '[]',
      '{}',
      `{"seq": ${seq + 2}}`,
      `{"seq": ${seq + 2}, "meta": {"status": 1}}`,
      `{"seq": ${seq + 2}, "meta": ${JSON.stringify(JSON.parse(good).meta)}, "agents": [7]}`,
    ]) {
      const text = `${good}\n${bad}\n`;
      writeFileSync(journal, text);
      for (const args of [['--resume', 'bj'], ['--status', 'bj'], ['--list']]) {
        const r = await box.run(args);
        const line =
          /\S*\.raymond\/state\/bj\.journal: the journal is damaged at line 2: valid JSON, but not a journal record\n/
            .source;
        // --list goes on with the other runs (this sandbox holds broken ones of other tests too).
        assert.match(
          r.stderr,
          args[0] === '--list'
            ? new RegExp(`^warning: skipped ${line}`, 'm')
            : new RegExp(`^raymond: ${line}$`),
          `${args[0]} ${bad}: ${r.stderr}`,
        );
        assert.equal(r.code, args[0] === '--list' ? 0 : 64, `${args[0]} ${bad}`);
        assert.equal(readFileSync(journal, 'utf8'), text, 'the journal is untouched');
        assert.equal(readFileSync(snapshot, 'utf8'), before, 'the snapshot is untouched');
      }
    }
  });

  it('a hand-edited state or stack frame naming a file outside the workflow runs nothing, even with --allow-changes', async () => {
    const wf = flaky('edited-state');
    assert.equal((await box.run([wf, '--workflow-id', 'hand'])).code, 1);
    writeFileSync(join(box.dir, 'hand.ok'), '');
    const evil = join(box.dir, 'evil.sh');
    writeFileSync(
      evil,
      sh(`touch ${join(box.dir, 'ESCAPED')}`, 'echo "<result>escaped</result>"'),
      { mode: 0o755 },
    );
    const file = join(box.dir, '.raymond/state/hand.json');
    const good = JSON.parse(readFileSync(file, 'utf8')) as {
      agents: Array<{ id: string; state: string; stack: unknown[] }>;
    };
    const edits: Array<[string, (a: { state: string; stack: unknown[] }) => void, RegExp]> = [
      [
        'state',
        (a) => (a.state = '../../evil.sh'),
        /agent main's state "\.\.\/\.\.\/evil\.sh" is not a state of run hand's workflow \(target "\.\.\/\.\.\/evil\.sh" is a path/,
      ],
      [
        'frame',
        (a) => (a.stack = [{ state: '../evil.sh', session: null }]),
        /agent main's stack frame 1 "\.\.\/evil\.sh" is not a state of run hand's workflow/,
      ],
      [
        'no extension',
        (a) => (a.state = 'END'),
        /agent main's state "END" is not a state file name of run hand's workflow \(it would be END\.sh\)/,
      ],
    ];
    for (const [what, edit, pattern] of edits) {
      const state = structuredClone(good);
      edit(state.agents.find((a) => a.id === 'main')!);
      const text = JSON.stringify(state);
      writeFileSync(file, text);
      for (const extra of [[], ['--allow-changes']]) {
        const r = await box.run(['--resume', 'hand', ...extra]);
        assert.equal(r.code, 64, `${what}: ${r.stderr}`);
        assert.ok(r.stderr.startsWith(`raymond: ${file}: `), r.stderr);
        assert.match(r.stderr, pattern, what);
        assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
        assert.equal(existsSync(join(box.dir, 'ESCAPED')), false, `${what}: evil.sh did not run`);
        assert.equal(readFileSync(file, 'utf8'), text, 'the state file is untouched');
      }
    }
    writeFileSync(file, JSON.stringify(good));
    const r = await box.run(['--resume', 'hand', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'end fine');
  });

  it('fields of the wrong type give one line naming the state file and the field, for --resume, --status and --list', async () => {
    const wf = flaky('typed');
    assert.equal((await box.run([wf, '--workflow-id', 'typed'])).code, 1);
    const file = join(box.dir, '.raymond/state/typed.json');
    const good = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown> & {
      agents: Array<Record<string, unknown>>;
    };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...good, total_cost_usd: 'abc' }, 'total_cost_usd is "abc"; it must be a number'],
      [{ ...good, results: null }, 'results is null; it must be an object of strings'],
      [
        { ...good, options: { ...(good.options as object), max_parallel: '2' } },
        'options.max_parallel is "2"; it must be a number',
      ],
      [
        { ...good, agents: [{ ...good.agents[0], stack: [{ state: 7, session: null }] }] },
        'agents[0].stack[0].state is 7; it must be a string',
      ],
      [{ ...good, agents: [null] }, 'agents[0] must be an object'],
    ];
    for (const [state, problem] of cases) {
      const text = JSON.stringify(state);
      writeFileSync(file, text);
      const line = `${file}: the state file is damaged: ${problem}\n`;
      for (const args of [
        ['--resume', 'typed'],
        ['--status', 'typed'],
      ]) {
        const r = await box.run(args);
        assert.equal(r.code, 64, `${args[0]} ${problem}: ${r.stderr}`);
        assert.equal(r.stderr, `raymond: ${line}`);
      }
      const list = await box.run(['--list']);
      assert.ok(list.stderr.includes(`warning: skipped ${line}`), list.stderr);
      assert.equal(readFileSync(file, 'utf8'), text);
    }
  });

  it('a completed run has nothing to resume', async () => {
    const wf = box.write({ 'START.sh': sh('echo "<result>x</result>"') }, 'doneflow');
    await box.run([wf, '--workflow-id', 'done1']);
    const r = await box.run(['--resume', 'done1']);
    assert.equal(r.code, 64);
    assert.match(r.stderr, /run done1 has completed; nothing to resume/);
  });
});

describe('--list, --status, --recover', () => {
  it('show runs, one line each, an agent table, and what can be resumed', async () => {
    const own = new Sandbox();
    try {
      const okWf = own.write(
        {
          'START.sh': sh('echo "<fork next=\\"END\\" item=\\"a\\">W</fork>"'),
          'W.sh': sh('echo "<result>w</result>"'),
          'END.sh': sh('echo "<result>fine</result>"'),
        },
        'ok',
      );
      const badWf = own.write(
        {
          'START.sh': sh('echo "<call return=\\"END\\">SUB</call>"'),
          'SUB.sh': sh('exit 3'),
          'END.sh': sh('echo "<result>e</result>"'),
        },
        'bad',
      );
      await own.run([okWf, '--workflow-id', 'good']);
      await own.run([badWf, '--workflow-id', 'broken']);
      const list = await own.run(['--list']);
      assert.equal(list.code, 0);
      const lines = list.stdout.trim().split('\n');
      assert.equal(lines.length, 2);
      assert.match(lines[0]!, /^good {2}completed {2}0 live {2}\$0\.00 {2}\d{4}-/);
      assert.match(lines[1]!, /^broken {2}failed {2}1 live /);
      const json = JSON.parse((await own.run(['--list', '--json'])).stdout) as Array<{
        workflow_id: string;
        status: string;
        live_agents: number;
      }>;
      assert.deepEqual(
        json.map((r) => [r.workflow_id, r.status, r.live_agents]),
        [
          ['good', 'completed', 0],
          ['broken', 'failed', 1],
        ],
      );
      const status = await own.run(['--status', 'broken']);
      assert.match(status.stdout, /^run broken: failed$/m);
      assert.match(status.stdout, /^cost: \$0\.00 of \$10\.00/m);
      assert.match(
        status.stdout,
        /^ {2}main {2}failed {2}SUB\.sh {2}depth 1 {2}\S+ {2}.*SUB\.sh: exited with code 3$/m,
      );
      const good = await own.run(['--status', 'good']);
      // In the order the agents finished, which the two racing agents do not fix.
      assert.match(good.stdout, /results \(2\):\n(?: {2}(?:main_w1: w|main: fine)\n){2}/);
      assert.match(good.stdout, /main_w1: w\n/);
      assert.match(good.stdout, /main: fine\n/);
      assert.equal(
        JSON.parse((await own.run(['--status', 'good', '--json'])).stdout).results.main,
        'fine',
      );
      const recover = await own.run(['--recover']);
      assert.equal(recover.stdout.trim(), `${lines[1]}\n  raymond --resume broken`);
    } finally {
      own.remove();
    }
  });
});

describe('run ids on the command line', () => {
  it('--status, worktrees and --resume take plain ids only and read nothing outside the state folder', async () => {
    const own = new Sandbox();
    try {
      const wf = own.write({ 'START.sh': sh('echo "<result>x</result>"') }, 'wf');
      await own.run([wf, '--workflow-id', 'outside']);
      // A run's files where an id with a path would reach them: beside the state folder and above it.
      const state = readFileSync(join(own.dir, '.raymond/state/outside.json'), 'utf8');
      writeFileSync(join(own.dir, '.raymond/x.json'), state);
      writeFileSync(join(own.dir, 'x.json'), state);
      const cases = [
        ['--status', '../../x'],
        ['--status', '../x', '--json'],
        ['worktrees', '../x'],
        ['--resume', '../../x'],
        ['--status', 'a/b'],
        ['--status', ''],
      ];
      for (const args of cases) {
        const r = await own.run(args);
        assert.equal(r.code, 64, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
        const message = `invalid workflow id ${JSON.stringify(args[1])}: use 1-128 letters, digits, - or _`;
        // With --json the error is also the JSON object on stdout; nothing else is printed.
        assert.equal(
          r.stdout,
          args.includes('--json')
            ? `${JSON.stringify({ error: message, code: 'ERR_WORKFLOW_ID' })}\n`
            : '',
          args.join(' '),
        );
        assert.equal(r.stderr, `raymond: ${message}\n`);
      }
    } finally {
      own.remove();
    }
  });
});

function readFileSafe(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
