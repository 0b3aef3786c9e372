import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { claudeArgs } from '../../../src/agents/claude/claude-argv.js';
import { compareVersions, helpFlags } from '../../../src/agents/claude/claude-version.js';

describe('Claude Code versions and flags', () => {
  it('compares dotted versions as numbers', () => {
    assert.ok(compareVersions('2.1.197', '2.1.330') < 0);
    assert.ok(compareVersions('2.10.0', '2.9.9') > 0);
    assert.equal(compareVersions('2.1.197', '2.1.197'), 0);
    assert.ok(compareVersions('1.0.3', '2.1.197') < 0);
  });

  it("reads every flag a --help lists, both spellings of one, and nothing from its descriptions' words", () => {
    const flags = helpFlags(
      [
        '  --disallowedTools, --disallowed-tools <tools...>  Comma-separated list',
        '  --system-prompt-snapshot <on|off>     Record the system prompt once per',
        '  -p, --print                           Print response and exit (useful for pipes)',
        '  --fork-session                        When resuming, create a new session ID',
        '                                        instead of reusing (see non-flag--words)',
      ].join('\n'),
    );
    assert.deepEqual([...flags].sort(), [
      '--disallowed-tools',
      '--disallowedTools',
      '--fork-session',
      '--print',
      '--system-prompt-snapshot',
    ]);
  });

  it('passes --system-prompt-snapshot off on a resumed turn only to a Claude Code that lists it', () => {
    const turn = {
      prompt: 'x',
      session: { kind: 'resume', session: 's1' } as const,
      skipPermissions: true,
    };
    assert.ok(claudeArgs(turn).includes('--system-prompt-snapshot'));
    const flags = new Set(['--system-prompt-snapshot']);
    assert.ok(claudeArgs({ ...turn, flags }).includes('--system-prompt-snapshot'));
    assert.ok(
      !claudeArgs({ ...turn, flags: new Set(['--resume']) }).includes('--system-prompt-snapshot'),
    );
    assert.ok(
      !claudeArgs({ ...turn, session: { kind: 'fresh' }, flags }).includes(
        '--system-prompt-snapshot',
      ),
      'a fresh turn without a grant needs none',
    );
  });
});
