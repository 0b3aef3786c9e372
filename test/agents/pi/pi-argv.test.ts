import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  SAFE_PI_TOOLS,
  piArgs,
  piToolProblem,
  type PiInvocation,
} from '../../../src/agents/pi/pi-argv.js';

const inv = (over: Partial<PiInvocation> = {}): PiInvocation => ({
  session: { kind: 'fresh' },
  skipPermissions: false,
  options: {},
  ...over,
});
const SAFE = ['--tools', 'read,edit,write,grep,find,ls'];

/** The values following each occurrence of `flag`. */
const valuesOf = (args: string[], flag: string) =>
  args.flatMap((a, i) => (a === flag ? [args[i + 1]] : []));

describe('piArgs', () => {
  it('gives only --mode json and the safe tools for a fresh turn with no options', () => {
    assert.deepEqual(piArgs(inv()), ['--mode', 'json', ...SAFE]);
    assert.deepEqual(SAFE_PI_TOOLS, ['read', 'edit', 'write', 'grep', 'find', 'ls']);
  });

  const cases: Array<[string, Partial<PiInvocation>, string[]]> = [
    ['session_dir', { options: { session_dir: '/s d' } }, ['--session-dir', '/s d']],
    ['provider', { options: { provider: 'openai' } }, ['--provider', 'openai']],
    ['model', { model: 'openai/gpt-5' }, ['--model', 'openai/gpt-5']],
    ['thinking of the invocation', { thinking: 'high' }, ['--thinking', 'high']],
    ['thinking of the options', { options: { thinking: 'minimal' } }, ['--thinking', 'minimal']],
    [
      'resume',
      { session: { kind: 'resume', ref: '/x/2025_abc.jsonl' } },
      ['--session', '/x/2025_abc.jsonl'],
    ],
    ['fork', { session: { kind: 'fork', from: 'abc' } }, ['--fork', 'abc']],
    ['no_tools', { options: { no_tools: true } }, ['--no-tools']],
    ['no_builtin_tools', { options: { no_builtin_tools: true } }, ['--no-builtin-tools']],
    ['a tools list', { options: { tools: ['read', 'bash'] } }, ['--tools', 'read,bash']],
    [
      'a tools list with skipped permissions',
      { skipPermissions: true, options: { tools: ['read'] } },
      ['--tools', 'read'],
    ],
    ['no_extensions', { options: { no_extensions: true } }, ['--no-extensions']],
    ['no_skills', { options: { no_skills: true } }, ['--no-skills']],
  ];
  for (const [what, over, expected] of cases) {
    it(`maps ${what}`, () => {
      const args = piArgs(inv(over));
      assert.deepEqual(args.slice(0, 2), ['--mode', 'json']);
      const at = args.indexOf(expected[0]!);
      assert.ok(at >= 2, `${expected[0]} missing from ${args.join(' ')}`);
      assert.deepEqual(args.slice(at, at + expected.length), expected);
    });
  }

  it('prefers the invocation thinking to options.thinking, once', () => {
    assert.deepEqual(
      valuesOf(piArgs(inv({ thinking: 'xhigh', options: { thinking: 'low' } })), '--thinking'),
      ['xhigh'],
    );
  });

  it('gives no --session nor --fork for a fresh turn, and only the one asked otherwise', () => {
    const fresh = piArgs(inv({ options: { session_dir: '/sd' } }));
    assert.ok(!fresh.includes('--session') && !fresh.includes('--fork'));
    const resumed = piArgs(inv({ session: { kind: 'resume', ref: 'r' } }));
    assert.ok(!resumed.includes('--fork'));
    const forked = piArgs(inv({ session: { kind: 'fork', from: 'f' } }));
    assert.ok(!forked.includes('--session'));
  });

  it('gives no tools flag with skipped permissions and no tool options', () => {
    const args = piArgs(inv({ skipPermissions: true }));
    assert.deepEqual(args, ['--mode', 'json']);
  });

  it('gives exactly one tools flag whatever the options', () => {
    const toolFlags = (a: string[]) =>
      a.filter((x) => x === '--tools' || x === '--no-tools' || x === '--no-builtin-tools');
    assert.deepEqual(toolFlags(piArgs(inv({ options: { no_tools: true } }))), ['--no-tools']);
    assert.deepEqual(toolFlags(piArgs(inv({ options: { no_builtin_tools: true } }))), [
      '--no-builtin-tools',
    ]);
    assert.deepEqual(
      toolFlags(piArgs(inv({ skipPermissions: true, options: { no_tools: true } }))),
      ['--no-tools'],
    );
    assert.deepEqual(toolFlags(piArgs(inv({ options: { tools: ['ls'] } }))), ['--tools']);
  });

  it("gives a state's tools in pi's names over the workflow's options, [] as none, and its system prompt", () => {
    const args = piArgs(
      inv({
        options: { tools: ['ls'] },
        tools: ['Read', 'Glob', 'find', 'Bash'],
        appendSystemPrompt: 'be brief',
      }),
    );
    assert.deepEqual(args.slice(args.indexOf('--tools'), args.indexOf('--tools') + 2), [
      '--tools',
      'read,find,bash',
    ]);
    assert.equal(args.filter((a) => a === '--tools').length, 1);
    assert.deepEqual(args.slice(-2), ['--append-system-prompt', 'be brief']);
    assert.ok(piArgs(inv({ skipPermissions: true, tools: [] })).includes('--no-tools'));
    assert.equal(
      piToolProblem(['Read', 'Bash(git *)']),
      '"Bash(git *)" is a pattern; pi takes tool names only',
    );
    assert.match(piToolProblem(['WebFetch'])!, /pi has no tool "WebFetch"/);
  });

  it('passes each extension and skill, in order', () => {
    const args = piArgs(
      inv({ options: { extensions: ['./ext.ts', 'npm:pkg'], skills: ['./a', './b'] } }),
    );
    assert.deepEqual(valuesOf(args, '--extension'), ['./ext.ts', 'npm:pkg']);
    assert.deepEqual(valuesOf(args, '--skill'), ['./a', './b']);
  });

  it('gives the whole argv for every option at once', () => {
    const args = piArgs(
      inv({
        session: { kind: 'resume', ref: 'ref1' },
        model: 'm',
        options: {
          session_dir: '/sd',
          provider: 'p',
          thinking: 'low',
          tools: ['read'],
          extensions: ['e'],
          skills: ['s'],
          no_extensions: true,
          no_skills: true,
        },
      }),
    );
    assert.deepEqual(args, [
      '--mode',
      'json',
      '--session-dir',
      '/sd',
      '--provider',
      'p',
      '--model',
      'm',
      '--thinking',
      'low',
      '--session',
      'ref1',
      '--tools',
      'read',
      '--extension',
      'e',
      '--skill',
      's',
      '--no-extensions',
      '--no-skills',
    ]);
  });

  it('never carries a prompt', () => {
    const prompt = '@secrets.txt --no-tools Do the thing <goto>B</goto>';
    const args = piArgs({
      ...inv({ model: 'm', options: { provider: 'p' } }),
      prompt,
    } as PiInvocation);
    assert.ok(!args.some((a) => a.includes('Do the thing') || a.startsWith('@')), args.join(' '));
    assert.ok(!args.includes('--no-tools'));
    assert.ok(!args.includes('-p') && !args.includes('--print'));
  });
});
