import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCodexOptions } from '../../../src/agents/codex/codex-options.js';

const bad = (message: string): never => {
  throw new Error(message);
};
const parse = (raw: Record<string, unknown>) => parseCodexOptions(raw, bad);
const problem = (raw: Record<string, unknown>) => {
  try {
    parse(raw);
  } catch (err) {
    return (err as Error).message;
  }
  return undefined;
};

describe('parseCodexOptions', () => {
  it('takes every option', () => {
    const raw = {
      profile: 'work',
      sandbox: 'read-only',
      provider: 'acme',
      base_url: 'https://llm.acme.test/v1',
      config: {
        model_verbosity: 'low',
        'model_providers.acme.env_key': 'ACME_KEY',
        'tools.web_search': false,
        'sandbox_workspace_write.writable_roots': ['/data'],
        'shell_environment_policy.set': { A: 'b' },
        model_context_window: 200000,
      },
    };
    assert.deepEqual(parse(raw), raw);
    assert.deepEqual(parse({}), {});
  });

  it('refuses an unknown option, naming the known ones', () => {
    assert.equal(
      problem({ model: 'x' }),
      'unknown codex option "model" (known: profile, sandbox, provider, base_url, config)',
    );
  });

  for (const [raw, expected] of [
    [
      { sandbox: 'workspace' },
      'options.sandbox = "workspace": expected one of read-only, workspace-write, danger-full-access',
    ],
    [
      { sandbox: true },
      'options.sandbox = true: expected one of read-only, workspace-write, danger-full-access',
    ],
    [
      { profile: '' },
      'options.profile = "": expected a profile name (codex reads $CODEX_HOME/NAME.config.toml)',
    ],
    [
      { profile: 'a/b' },
      'options.profile = "a/b": expected a profile name (codex reads $CODEX_HOME/NAME.config.toml)',
    ],
    [
      { provider: 'my.provider' },
      'options.provider = "my.provider": expected a provider name (letters, digits, _ and -)',
    ],
    [{ provider: 3 }, 'options.provider = 3: expected a provider name (letters, digits, _ and -)'],
    [
      { base_url: 'llm.acme.test' },
      'options.base_url = "llm.acme.test": expected an http:// or https:// address',
    ],
    [
      { config: ['a'] },
      'options.config = ["a"]: expected a mapping of codex config keys to values',
    ],
    [
      { config: 'model=x' },
      'options.config = "model=x": expected a mapping of codex config keys to values',
    ],
    [
      { config: { 'a b': 1 } },
      'options.config: "a b" is not a codex config key (dotted names of letters, digits, _ and -)',
    ],
    [
      { config: { 'mcp_servers."x".command': 'y' } },
      'options.config: "mcp_servers."x".command" is not a codex config key (dotted names of letters, digits, _ and -)',
    ],
    [
      { config: { model: null } },
      'options.config.model = null: expected text, a number, true or false, a list or a mapping',
    ],
    [
      { config: { a: { b: [1, null] } } },
      'options.config.a.b[1] = null: expected text, a number, true or false, a list or a mapping',
    ],
  ] as Array<[Record<string, unknown>, string]>)
    it(`refuses ${JSON.stringify(raw)}`, () => assert.equal(problem(raw), expected));
});
