import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT, Sandbox, sh, summary } from '../helpers/cli.js';

const FAKE = join(ROOT, 'test/fixtures/fake-claude/claude');

describe('debug logs', () => {
  const box = new Sandbox({ project: false });
  after(() => box.remove());

  it('keep each step’s raw output and a transitions log, numbered on across resumes', async () => {
    const fake = join(box.dir, 'fake');
    mkdirSync(fake);
    const wf = box.write(
      {
        'START.sh': sh('echo "to stderr" >&2', 'echo "<goto>ASK</goto>"'),
        'ASK.md': 'question',
        'END.sh': sh('[ -f go ] || exit 4', 'echo "<result>end</result>"'),
      },
      'dbg',
    );
    const env = { FAKE_CLAUDE_DIR: fake, FAKE_CLAUDE_REPLY: '<goto>END</goto>' };
    assert.equal((await box.run([wf, '--workflow-id', 'dbg', '--claude-bin', FAKE], env)).code, 1);
    writeFileSync(join(box.dir, 'go'), '');
    assert.equal((await box.run(['--resume', 'dbg', '--claude-bin', FAKE], env)).code, 0);
    const dir = join(box.dir, '.raymond/debug/dbg');
    const files = readdirSync(dir).sort();
    assert.deepEqual(files, ['main_ASK_002.jsonl', 'scripts.jsonl', 'transitions.log']);
    type ScriptLine = {
      step: number;
      agent: string;
      state: string;
      stdout: string;
      stderr: string;
      exit_code: number;
      duration_ms: number;
      env: Record<string, string>;
    };
    const scripts = readFileSync(join(dir, 'scripts.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as ScriptLine);
    assert.deepEqual(
      scripts.map((s) => [s.step, s.agent, s.state]),
      [
        [1, 'main', 'START.sh'],
        [3, 'main', 'END.sh'],
        [4, 'main', 'END.sh'],
      ],
    );
    assert.equal(scripts[0]!.stderr, 'to stderr\n');
    assert.equal(scripts[0]!.stdout, '<goto>ASK</goto>\n');
    const meta = scripts[1]!;
    assert.equal(meta.exit_code, 4);
    assert.equal(meta.env.RAYMOND_WORKFLOW_ID, 'dbg');
    assert.ok(meta.duration_ms >= 0);
    const stream = readFileSync(join(dir, 'main_ASK_002.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    assert.deepEqual(
      stream.map((m) => m.type),
      ['system', 'assistant', 'result'],
    );
    const log = readFileSync(join(dir, 'transitions.log'), 'utf8').trim().split('\n');
    assert.match(
      log[0]!,
      /^\d{4}-\d\d-\d\dT\S+ \[main\] START\.sh -> ASK\.md \(goto\) cost=\$0\.000000 total=\$0\.000000 session=- depth=0$/,
    );
    assert.match(
      log[1]!,
      /\[main\] ASK\.md -> END\.sh \(goto\) cost=\$0\.010000 total=\$0\.010000 session=[0-9a-f-]{36} depth=0$/,
    );
    assert.match(log[2]!, /\[main\] END\.sh failed: .*exited with code 4/);
    assert.match(log[3]!, /\[main\] END\.sh -> \(terminated\) \(result\)/);
  });

  it('--no-debug writes none, and an unwritable debug folder never fails the run', async () => {
    const wf = box.write({ 'START.sh': sh('echo "<result>x</result>"') }, 'nodebug');
    assert.equal((await box.run([wf, '--workflow-id', 'nd', '--no-debug'])).code, 0);
    assert.equal(existsSync(join(box.dir, '.raymond/debug/nd')), false);
    const other = join(box.dir, 'ro');
    mkdirSync(join(other, 'state'), { recursive: true });
    writeFileSync(join(other, 'debug'), 'a file where the debug folder should be');
    const r = await box.run([wf, '--json', '--state-dir', 'ro/state']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /warning: debug logs disabled: cannot write to .*ro\/debug/);
    assert.equal(summary(r).results.main, 'x');
    chmodSync(other, 0o755);
  });
});

describe('.raymond/config.toml', () => {
  const box = new Sandbox({ project: false });
  after(() => box.remove());

  it('is found by walking up to the git root; flags beat it, it beats defaults', async () => {
    mkdirSync(join(box.dir, 'repo/.git'), { recursive: true });
    mkdirSync(join(box.dir, 'repo/.raymond'), { recursive: true });
    mkdirSync(join(box.dir, 'repo/sub/deeper'), { recursive: true });
    writeFileSync(
      join(box.dir, 'repo/.raymond/config.toml'),
      '[raymond]\nbudget = 2.5\nmax_parallel = 1\ntimeout = 45\nmodel = "haiku"\nno_debug = true\n',
    );
    const wf = box.write({ 'START.sh': sh('echo "<result>x</result>"') }, 'repo/wf');
    const cwd = join(box.dir, 'repo/sub/deeper');
    const { raymond } = await import('../helpers/cli.js');
    assert.equal((await raymond([wf, '--workflow-id', 'c1', '--timeout', '99'], { cwd })).code, 0);
    // The state goes to the project's .raymond, the one the config was found in, as in ray.
    const state = JSON.parse(
      readFileSync(join(box.dir, 'repo/.raymond/state/c1.json'), 'utf8'),
    ) as { options: Record<string, unknown> };
    assert.deepEqual(state.options, {
      timeout_seconds: 99,
      max_parallel: 1,
      budget_usd: 2.5,
      model: 'haiku',
      effort: null,
      dangerously_skip_permissions: false,
      worktrees: 'keep-ignored',
      task_folder_pattern: '.raymond/tasks/{workflow_id}/{agent_id}',
      on_ask: 'reject',
    });
    assert.equal(existsSync(join(box.dir, 'repo/.raymond/debug')), false, 'no_debug = true');
    assert.equal(existsSync(join(cwd, '.raymond')), false);
  });

  it('an invalid file names the file, the key and the expected value', async () => {
    const cases: Array<[string, RegExp]> = [
      [
        '[raymond]\nbudget = "lots"\n',
        /config\.toml: raymond\.budget = "lots": expected an amount in USD, 0 or more \(0 = unlimited\)$/m,
      ],
      [
        '[raymond]\nmodel = "two words"\n',
        /raymond\.model = "two words": Claude Code: model "two words" is not opus, sonnet, haiku or a full model name \(claude-\.\.\.\); Codex: model "two words" is not a codex model name; pi: .*/,
      ],
      ['[raymond\nbudget = 1\n', /config\.toml: not valid TOML/],
      [
        'raymond = 5\n',
        /config\.toml: raymond = 5: expected the table \[raymond\], with the options under it$/m,
      ],
      [
        'raymond = 1979-05-27\n',
        /config\.toml: raymond = 1979-05-27: expected the table \[raymond\]/,
      ],
      ['raymond = [1]\n', /config\.toml: raymond = \[1\]: expected the table \[raymond\]/],
      [
        '[raymond]\ntimeout = inf\n',
        /config\.toml: raymond\.timeout = Infinity: expected a number of seconds, 0 or more/,
      ],
    ];
    const wf = box.write({ 'START.sh': sh('echo "<result>x</result>"') }, 'cfg/wf');
    mkdirSync(join(box.dir, 'cfg/.git'), { recursive: true });
    mkdirSync(join(box.dir, 'cfg/.raymond'), { recursive: true });
    const { raymond } = await import('../helpers/cli.js');
    for (const [text, pattern] of cases) {
      writeFileSync(join(box.dir, 'cfg/.raymond/config.toml'), text);
      const r = await raymond([wf], { cwd: join(box.dir, 'cfg') });
      assert.equal(r.code, 64, text);
      assert.match(r.stderr, pattern);
      assert.equal(r.stderr.trim().split('\n').length, 1);
    }
  });

  it('a config written for ray loads: its keys are taken, and a key neither knows is a warning naming the file and the key', async () => {
    const wf = box.write({ 'START.sh': sh('echo "<result>x</result>"') }, 'raycfg/wf');
    mkdirSync(join(box.dir, 'raycfg/.git'), { recursive: true });
    mkdirSync(join(box.dir, 'raycfg/.raymond'), { recursive: true });
    const file = join(box.dir, 'raycfg/.raymond/config.toml');
    writeFileSync(
      file,
      'budget = 1\n[raymond]\nname = "nightly"\nverbose = true\ntimeout = 0\nmax_paralel = 2\n"__proto__" = 1\n[raymond.serve]\nport = 8080\n',
    );
    const { raymond } = await import('../helpers/cli.js');
    const r = await raymond([wf, '--workflow-id', 'raycfg'], { cwd: join(box.dir, 'raycfg') });
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `raymond: warning: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: unknown key raymond\\.max_paralel, ignored`,
      ),
    );
    assert.match(r.stderr, /unknown key raymond\.__proto__, ignored/);
    assert.match(r.stderr, /unknown section or key "budget", ignored/);
    assert.doesNotMatch(r.stderr, /key raymond\.name|serve/, 'keys ray knows are taken quietly');
    assert.equal(
      (
        JSON.parse(readFileSync(join(box.dir, 'raycfg/.raymond/state/raycfg.json'), 'utf8')) as {
          options: { name?: string };
        }
      ).options.name,
      'nightly',
      'name labels the run',
    );
    assert.match(r.stderr, /state file .*: \d+ writes/, 'verbose = true is --verbose');
    const state = JSON.parse(
      readFileSync(join(box.dir, 'raycfg/.raymond/state/raycfg.json'), 'utf8'),
    ) as { options: { timeout_seconds: number } };
    assert.equal(state.options.timeout_seconds, 2147483, 'timeout = 0: never, as in ray');
  });

  it('--init-config writes a template with every key and refuses to overwrite it', async () => {
    const dir = join(box.dir, 'init');
    mkdirSync(dir);
    const { raymond } = await import('../helpers/cli.js');
    const r = await raymond(['--init-config'], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    const text = readFileSync(join(dir, '.raymond/config.toml'), 'utf8');
    for (const key of [
      'budget',
      'model',
      'effort',
      'timeout',
      'max_parallel',
      'dangerously_skip_permissions',
      'no_debug',
      'no_wait',
      'claude_bin',
      'worktrees',
    ])
      assert.match(text, new RegExp(`^# ${key} = `, 'm'));
    const again = await raymond(['--init-config'], { cwd: dir });
    assert.equal(again.code, 64);
    assert.match(again.stderr, /config\.toml: already exists/);
    // The template itself is valid: uncommenting a line gives a working file.
    writeFileSync(
      join(dir, '.raymond/config.toml'),
      text.replace('# budget = 10.0', 'budget = 10.0'),
    );
    mkdirSync(join(dir, '.git'));
    box.write({ 'START.sh': sh('echo "<result>x</result>"') }, 'init/wf');
    assert.equal((await raymond(['wf'], { cwd: dir })).code, 0);
  });
});
