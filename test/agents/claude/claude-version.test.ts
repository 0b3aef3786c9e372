import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FALLBACK_LIST, claudeArgs } from '../../../src/agents/claude/claude-argv.js';
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

  it('passes --fallback-model as a list where the help says it takes one, else its first model, else nothing', () => {
    const help = [
      '  --fallback-model <model>              Models to fall back to when the main',
      '                                        model is busy or unavailable',
      '                                        (comma-separated, in order).',
      '  --file <specs...>                     Files to download at startup',
    ].join('\n');
    const list = helpFlags(help);
    assert.ok(list.has(FALLBACK_LIST));
    const one = helpFlags(
      '  --fallback-model <model>  Enable automatic fallback to specified model when default model is overloaded\n  --file <x>  y',
    );
    assert.ok(one.has('--fallback-model') && !one.has(FALLBACK_LIST));
    const turn = {
      prompt: 'x',
      session: { kind: 'fresh' } as const,
      skipPermissions: true,
      fallbackModels: ['sonnet', 'haiku'],
    };
    const value = (flags: Set<string>) => {
      const args = claudeArgs({ ...turn, flags });
      const at = args.indexOf('--fallback-model');
      return at < 0 ? undefined : args[at + 1];
    };
    assert.equal(value(list), 'sonnet,haiku');
    assert.equal(value(one), 'sonnet');
    assert.equal(value(new Set(['--model'])), undefined);
    assert.ok(!claudeArgs({ ...turn, fallbackModels: [] }).includes('--fallback-model'));
  });
});
