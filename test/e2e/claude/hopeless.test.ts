import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { summary } from '../../helpers/cli.js';
import { ClaudeSandbox, PASS_QUESTIONS } from '../../helpers/claude-sandbox.js';

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

/** A `--claude-bin` that logs each start, runs `before` (bash), then becomes the real `claude`. */
function wrapped(name: string, before = ''): { bin: string; starts: () => number } {
  const log = join(box.dir, `${name}.starts`);
  const bin = join(box.dir, `${name}-claude`);
  writeFileSync(
    bin,
    `#!/usr/bin/env bash\n${PASS_QUESTIONS}\necho "$*" >> '${log}'\n${before}\nexec claude "$@"\n`,
  );
  chmodSync(bin, 0o755);
  return {
    bin,
    starts: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').length : 0),
  };
}

/** The run failed at once: one start, no retry, the agent failed (not paused), one `raymond:` line saying what to do. */
function stoppedAtOnce(
  r: { code: number; stdout: string; stderr: string },
  starts: number,
  message: RegExp,
): void {
  assert.equal(r.code, 1, r.stderr);
  assert.equal(starts, 1, 'tried once');
  assert.doesNotMatch(r.stderr, /retrying \(|paused/);
  assert.equal(summary(r).status, 'failed');
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('raymond:'));
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, message);
}

describe('failures no retry can cure stop at once (real claude, scripted API)', () => {
  it('a claude that is not logged in', async () => {
    const claude = wrapped('nologin', 'unset ANTHROPIC_API_KEY');
    const wf = box.write({ 'START.md': 'NOLOGIN: hi' }, 'nologin');
    const r = await box.run([wf, '--json', '--workflow-id', 'nologin', '--claude-bin', claude.bin]);
    stoppedAtOnce(
      r,
      claude.starts(),
      /START\.md: Claude Code is not logged in or its API key was refused \("Not logged in · Please run \/login"\): run claude and \/login, or set a valid ANTHROPIC_API_KEY/,
    );
  });

  it('an API key the API refuses, which Claude Code would retry for minutes', async () => {
    const claude = wrapped('badkey');
    box.server.on('BADKEY', { status: 401 });
    const wf = box.write({ 'START.md': 'BADKEY: hi' }, 'badkey');
    const r = await box.run([wf, '--json', '--workflow-id', 'badkey', '--claude-bin', claude.bin]);
    stoppedAtOnce(
      r,
      claude.starts(),
      /Claude Code is not logged in or its API key was refused \("the API refused the key \(HTTP 401\)"\)/,
    );
    assert.equal(box.server.requestsFor('BADKEY').length, 1, 'stopped at its first retry');
  });

  it('a model the API does not know', async () => {
    const claude = wrapped('nomodel');
    box.server.on('NOMODEL', { status: 404 });
    const wf = box.write(
      { 'START.md': '---\nmodel: claude-nonexistent-9\n---\nNOMODEL: hi' },
      'nomodel',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'nomodel', '--claude-bin', claude.bin]);
    stoppedAtOnce(
      r,
      claude.starts(),
      /Claude Code cannot use the model "claude-nonexistent-9" \(".*"\): name one it has/,
    );
  });

  it('a flag this claude refuses (an older Claude Code without --tools)', async () => {
    const claude = wrapped(
      'oldflag',
      `for a in "$@"; do [ "$a" = --tools ] && { echo "error: unknown option '--tools'" >&2; exit 1; }; done`,
    );
    const wf = box.write({ 'START.md': '---\ntools: [Read]\n---\nOLDFLAG: hi' }, 'oldflag');
    const r = await box.run([wf, '--json', '--workflow-id', 'oldflag', '--claude-bin', claude.bin]);
    stoppedAtOnce(
      r,
      claude.starts(),
      /Claude Code refused a flag Raymond gave it \(unknown option '--tools'\): update Claude Code/,
    );
  });

  it(
    'running as root with --dangerously-skip-permissions and no IS_SANDBOX',
    { skip: process.getuid?.() !== 0 && 'needs root' },
    async () => {
      const claude = wrapped('root', 'unset IS_SANDBOX');
      const wf = box.write({ 'START.md': 'ROOT: hi' }, 'root');
      const r = await box.run([
        wf,
        '--json',
        '--workflow-id',
        'root',
        '--claude-bin',
        claude.bin,
        '--dangerously-skip-permissions',
      ]);
      stoppedAtOnce(
        r,
        claude.starts(),
        /Claude Code refuses --dangerously-skip-permissions when run as root .*set IS_SANDBOX=1/,
      );
    },
  );
});
