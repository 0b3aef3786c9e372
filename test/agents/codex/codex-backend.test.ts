import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CODEX } from '../../../src/agents/codex/codex-backend.js';

describe('the Codex backend', () => {
  it('is named codex', () => {
    assert.equal(CODEX.name, 'codex');
    assert.equal(CODEX.title, 'Codex');
  });

  for (const m of [
    'gpt-5.5',
    'gpt-5.3-codex',
    'o3',
    'openai/gpt-oss-120b',
    'mock-model',
    'Qwen3:32b',
  ])
    it(`takes model ${m} verbatim`, () => assert.equal(CODEX.modelProblem(m), undefined));
  for (const m of ['', '  ', 'gpt 5', 'gpt-5\n'])
    it(`refuses model ${JSON.stringify(m)}`, () =>
      assert.equal(CODEX.modelProblem(m), `model "${m}" is not a codex model name`));

  for (const e of ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'])
    it(`takes effort ${e}`, () => assert.equal(CODEX.effortProblem(e), undefined));
  for (const e of ['off', 'ultra', 'High', ''])
    it(`refuses effort ${JSON.stringify(e)}, listing codex's levels`, () =>
      assert.equal(
        CODEX.effortProblem(e),
        `effort "${e}" is not one of codex's reasoning levels none, minimal, low, medium, high, xhigh, max`,
      ));

  it('honours permission_mode, add_dirs, append_system_prompt, on_denial and mcp_servers with mcp_inherit', () => {
    assert.equal(
      CODEX.grantProblem({
        permissionMode: 'plan',
        addDirs: ['../data'],
        appendSystemPrompt: 'Be brief.',
        onDenial: 'fail',
        mcpServers: { docs: { command: 'docs-server' } },
        mcpInherit: true,
      }),
      undefined,
    );
    assert.equal(CODEX.grantProblem({ mcpServers: 'servers.json', mcpInherit: true }), undefined);
    assert.equal(CODEX.grantProblem({ mcpInherit: false }), undefined);
  });

  for (const [grant, message] of [
    [
      { tools: ['Read', 'Bash'] },
      'tools: the codex backend cannot honour it (codex has no list of tools; limit what it may do with permission_mode (plan: read-only) and add_dirs)',
    ],
    [
      { tools: [] },
      'tools: the codex backend cannot honour it (codex has no list of tools; limit what it may do with permission_mode (plan: read-only) and add_dirs)',
    ],
    [
      { allowedTools: ['Bash(git *)'] },
      'allowed_tools: the codex backend cannot honour it (codex asks no permission in a run, so it has nothing to pre-approve; limit it with permission_mode and add_dirs)',
    ],
    [
      { disallowedTools: ['WebFetch'] },
      'disallowed_tools: the codex backend cannot honour it (codex has no deny list of tools; limit it with permission_mode (plan: read-only) and add_dirs)',
    ],
    [
      { mcpServers: { docs: { command: 'docs-server' } } },
      "mcp_servers: the codex backend cannot honour it without mcp_inherit: true (codex always starts the user's own MCP servers from its config.toml, so a state's servers can only come beside them): add mcp_inherit: true",
    ],
    [
      { mcpServers: 'servers.json' },
      "mcp_servers: the codex backend cannot honour it without mcp_inherit: true (codex always starts the user's own MCP servers from its config.toml, so a state's servers can only come beside them): add mcp_inherit: true",
    ],
    [
      { mcpServers: { 'my.docs': { command: 'x' } }, mcpInherit: true },
      'mcp_servers: the codex backend takes server names of letters, digits, _ and - only, not "my.docs"',
    ],
  ] as const)
    it(`refuses ${JSON.stringify(grant)}`, () =>
      assert.equal(CODEX.grantProblem(grant as Parameters<typeof CODEX.grantProblem>[0]), message));

  it('checks its options', () => {
    assert.deepEqual(
      CODEX.parseOptions({ sandbox: 'read-only' }, (m) => assert.fail(m)),
      {
        sandbox: 'read-only',
      },
    );
    assert.throws(
      () =>
        CODEX.parseOptions({ tools: [] }, (m) => {
          throw new Error(m);
        }),
      /unknown codex option "tools"/,
    );
  });

  it('is missing from a PATH without codex, in one line naming its package', async () => {
    await assert.rejects(CODEX.preflight({ PATH: '/nonexistent' }, {}), {
      code: 'ERR_BACKEND_NOT_FOUND',
      message:
        'codex is not on PATH, and this workflow runs on Codex (backend: codex): install it with npm install -g @openai/codex',
    });
  });
});
