import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT, Sandbox, alive, summary } from '../../helpers/cli.js';

/** Fault injection with the fake claude: what the real binary cannot do on demand. */
const FAKE = join(ROOT, 'test/fixtures/fake-claude/claude');
const box = new Sandbox();
after(() => box.remove());

interface Logged {
  n: number;
  args: string[];
  cwd: string;
  claudecode: string | null;
}

async function runFake(
  name: string,
  files: Record<string, string>,
  env: Record<string, string>,
  extra: string[] = [],
) {
  const dir = mkdtempSync(join(box.dir, 'fake-'));
  const wf = box.write(files, name);
  const r = await box.run([wf, '--json', '--workflow-id', name, '--claude-bin', FAKE, ...extra], {
    FAKE_CLAUDE_DIR: dir,
    ...env,
  });
  const log = readFileSync(join(dir, 'argv.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Logged);
  return { r, log, dir };
}

describe('Claude Code failures (fake claude)', () => {
  it('passes the documented argv (--no-warm: a process per turn), never through a shell, without CLAUDECODE', async () => {
    const { r, log } = await runFake(
      'argv',
      {
        'START.md': '---\nmodel: haiku\neffort: high\n---\nSay $(whoami) "quoted" --flag',
        'NEXT.md': 'second',
        'FN.md': 'fn',
      },
      { FAKE_CLAUDE_REPLY: '<goto>NEXT</goto>', FAKE_CLAUDE_FAILS: '0', CLAUDECODE: '1' },
      ['--budget', '0.015', '--no-warm'],
    );
    assert.equal(r.code, 3, r.stderr);
    const reserved = log[0]!.args[log[0]!.args.indexOf('--session-id') + 1]!;
    assert.match(reserved, /^[0-9a-f-]{36}$/);
    const denied = [
      '--disallowed-tools',
      'EnterPlanMode,ExitPlanMode,AskUserQuestion,NotebookEdit',
    ];
    assert.deepEqual(log[0]!.args, [
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--permission-mode',
      'acceptEdits',
      ...denied,
      '--model',
      'haiku',
      '--effort',
      'high',
      '--session-id',
      reserved,
      '--',
      'Say $(whoami) "quoted" --flag',
    ]);
    const sid = log[1]!.args[log[1]!.args.indexOf('--resume') + 1];
    assert.deepEqual(log[1]!.args, [
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--permission-mode',
      'acceptEdits',
      ...denied,
      '--resume',
      sid,
      '--system-prompt-snapshot',
      'off',
      '--',
      'second',
    ]);
    assert.equal(log[0]!.claudecode, null, 'CLAUDECODE removed from the child environment');
  });

  it('--permission-mode and --disallowed-tools (and their config keys) reach Claude Code; "" denies nothing', async () => {
    const { r, log } = await runFake('perm', { 'START.md': 'x' }, { FAKE_CLAUDE_FAILS: '0' }, [
      '--permission-mode',
      'plan',
      '--disallowed-tools',
      'Bash(git push *), WebFetch',
      '--no-warm',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const args = log[0]!.args.join(' ');
    assert.match(args, /--permission-mode plan --disallowed-tools Bash\(git push \*\),WebFetch /);
    const none = await runFake('perm-none', { 'START.md': 'x' }, { FAKE_CLAUDE_FAILS: '0' }, [
      '--disallowed-tools',
      '',
      '--no-warm',
    ]);
    assert.doesNotMatch(none.log[0]!.args.join(' '), /--disallowed-tools/);
    const bad = await box.run(['--permission-mode', 'yolo', 'x']);
    assert.equal(bad.code, 64);
    assert.match(bad.stderr, /--permission-mode <mode>' argument 'yolo' is invalid/);
  });

  it('charges per-invocation totals of older Claude Code versions in full', async () => {
    const { r } = await runFake(
      'oldcost',
      { 'START.md': 'a', 'B.md': 'b', 'C.md': 'c' },
      { FAKE_CLAUDE_REPLY: '<goto>B</goto>' },
      ['--budget', '0.025'],
    );
    // Each turn reports 0.01 for itself alone: three turns are 0.03, past the 0.025 budget.
    assert.equal(r.code, 3, r.stderr);
    assert.ok(Math.abs(summary(r).total_cost_usd - 0.03) < 1e-9, String(summary(r).total_cost_usd));
  });

  it('a crash is retried from the starting session, then succeeds', async () => {
    const { r, log } = await runFake(
      'retry',
      { 'START.md': 'x' },
      { FAKE_CLAUDE_MODE: 'crash', FAKE_CLAUDE_FAILS: '2' },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(log.length, 3);
    assert.match(
      r.stderr,
      /Claude Code exited with code 1: fake claude: something broke \| segmentation fault \(core dumped\); retrying \(1\/3\)/,
    );
    assert.match(r.stderr, /retrying \(2\/3\)/);
  });

  it('after three retries the agent is paused and the run ends paused (exit 4)', async () => {
    const { r, log } = await runFake('pause', { 'START.md': 'x' }, { FAKE_CLAUDE_MODE: 'crash' });
    assert.equal(r.code, 4, r.stderr);
    assert.equal(log.length, 4);
    const s = summary(r);
    assert.equal(s.status, 'paused');
    assert.match(
      s.error!,
      /main: .*START\.md: Claude Code exited with code 1: fake claude: something broke .*\(failed 4 times; the agent is paused\)/,
    );
    const state = box.state('pause');
    assert.equal(state.status, 'paused');
    assert.equal(state.agents[0]!.status, 'paused');
    assert.equal(state.agents[0]!.state, 'START.md');
  });

  it('Claude Code refusing --dangerously-skip-permissions as root fails the run at once and suggests IS_SANDBOX=1', async () => {
    const { r, log } = await runFake(
      'root',
      { 'START.md': 'x' },
      { FAKE_CLAUDE_MODE: 'root-refusal' },
      ['--dangerously-skip-permissions'],
    );
    assert.equal(r.code, 1, r.stderr);
    assert.equal(log.length, 1, 'not retried: it would refuse again');
    assert.doesNotMatch(r.stderr, /retrying/);
    const s = summary(r);
    assert.equal(s.status, 'failed');
    assert.match(
      s.error!,
      /START\.md: Claude Code refuses --dangerously-skip-permissions when run as root .*IS_SANDBOX=1/,
    );
    assert.match(r.stderr, /^raymond: .*IS_SANDBOX=1.*$/m);
    assert.equal(box.state('root').status, 'failed');
  });

  it('no output for --timeout seconds kills the process group and retries', async () => {
    const { r, log, dir } = await runFake(
      'hang',
      { 'START.md': 'x' },
      { FAKE_CLAUDE_MODE: 'hang', FAKE_CLAUDE_FAILS: '1' },
      ['--timeout', '1'],
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(log.length, 2);
    assert.match(
      r.stderr,
      /Claude Code printed nothing for 1 s and was killed \(--timeout\); retrying \(1\/3\)/,
    );
    const pid = Number(
      readFileSync(
        join(
          dir,
          readdirSync(dir).find((f) => f.startsWith('hang-'))!,
        ),
        'utf8',
      ),
    );
    assert.equal(alive(pid), false, 'the hung claude’s child was killed with its group');
  });

  it("a --timeout longer than Node's timers hold (24.8 days) kills no step, markdown or script", async () => {
    const { r, log } = await runFake(
      'longtimeout',
      {
        'START.md': 'x',
        'NEXT.sh': '#!/usr/bin/env bash\nsleep 0.2\necho "<result>done</result>"\n',
      },
      { FAKE_CLAUDE_REPLY: '<goto>NEXT.sh</goto>', FAKE_CLAUDE_FAILS: '0' },
      ['--timeout', '2147484'],
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'done');
    assert.equal(log.length, 1, 'Claude Code ran once, without a retry');
    assert.doesNotMatch(r.stderr, /killed|TimeoutOverflowWarning/);
  });

  it('garbage lines are skipped and multi-megabyte lines are read', async () => {
    const { r } = await runFake(
      'garbage',
      { 'START.md': 'x' },
      { FAKE_CLAUDE_MODE: 'garbage', FAKE_CLAUDE_REPLY: '<result>survived</result>' },
      ['--verbose'],
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'survived');
    assert.match(r.stderr, /skipped a line that is not JSON: this is not json/);
  });

  it('a usage limit pauses at once without burning retries, and says when it resets', async () => {
    const { r, log } = await runFake(
      'limit',
      { 'START.md': 'x' },
      { FAKE_CLAUDE_MODE: 'usage-limit' },
      ['--no-wait'],
    );
    assert.equal(r.code, 4, r.stderr);
    assert.equal(log.length, 1);
    assert.match(
      summary(r).error!,
      /Claude usage limit reached .*; resets at 2030-01-01T00:00:00\.000Z/,
    );
    assert.equal(box.state('limit').agents[0]!.resets_at, Date.parse('2030-01-01T00:00:00Z'));
  });

  it('a limit whose reset is given only in words ("resets 3pm (America/Chicago)") is waited for like a timestamp', async () => {
    const { r } = await runFake(
      'limittext',
      { 'START.md': 'x' },
      { FAKE_CLAUDE_MODE: 'limit-text' },
      ['--no-wait'],
    );
    assert.equal(r.code, 4, r.stderr);
    const reset = /resets at (\S+Z)/.exec(summary(r).error!)?.[1];
    assert.ok(reset, summary(r).error);
    const when = Date.parse(reset);
    assert.ok(
      when > Date.now() &&
        when <= Date.now() + 24 * 3_600_000 &&
        [20, 21].includes(new Date(when).getUTCHours()) &&
        new Date(when).getUTCMinutes() === 0,
      reset,
    );
    assert.equal(box.state('limittext').agents[0]!.resets_at, when);
  });

  it('without --no-wait, a run whose every agent hit the limit waits for the reset and continues', async () => {
    const started = Date.now();
    const { r, log } = await runFake(
      'wait',
      { 'START.md': 'x' },
      { FAKE_CLAUDE_MODE: 'usage-limit', FAKE_CLAUDE_FAILS: '1', FAKE_CLAUDE_RESETS_IN: '2' },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(log.length, 2);
    assert.match(r.stderr, /every live agent hit a usage limit; waiting until .* to continue/);
    assert.ok(Date.now() - started >= 1000, 'it waited');
    assert.equal(summary(r).results.main, 'ok');
  });

  it('an is_error result is shown to the user and retried', async () => {
    const { r, log } = await runFake(
      'iserror',
      { 'START.md': 'x' },
      { FAKE_CLAUDE_MODE: 'is-error', FAKE_CLAUDE_FAILS: '1' },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(log.length, 2);
    assert.match(
      r.stderr,
      /Claude Code reported an error: API Error: 401 \{"error":"invalid x-api-key"\}/,
    );
  });

  it('progress shows the first line of assistant text and each tool use', async () => {
    const { r } = await runFake('progress', { 'START.md': 'x' }, {});
    assert.match(r.stderr, /\[main\] Working on it\n/);
    assert.match(r.stderr, /\[main\] \[Edit\] src\/a\.ts/);
  });

  it('a missing claude is one clear line', async () => {
    const wf = box.write({ 'START.md': 'x' }, 'noclaude');
    const r = await box.run([wf, '--state-dir', 'noclaude-state'], { PATH: '/usr/bin:/bin' });
    assert.equal(r.code, 64, 'found before anything runs');
    assert.equal(existsSync(join(box.dir, 'noclaude-state')), false, 'no state file was written');
    assert.match(
      r.stderr,
      /^raymond: claude \(Claude Code\) is not on PATH: install it .* or pass --claude-bin PATH$/m,
    );
    const bad = await box.run([wf, '--claude-bin', './nope']);
    assert.match(bad.stderr, /raymond: --claude-bin \.\/nope: not an executable file/);
  });
});
