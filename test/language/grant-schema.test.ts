import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import {
  fitsGrantKey,
  fitsServerMap,
  GRANT_AS_WRITTEN,
  GRANT_KEYS,
  grantKeyProblem,
  mcpServersProblem,
  type GrantAsWritten,
} from '../../src/language/grant-schema.js';

describe('grant schemas', () => {
  it('accepts each key as written', () => {
    const grant: GrantAsWritten = {
      tools: 'Read, Bash(git add:*, x)',
      allowed_tools: ['Read', 'Bash(git *)'],
      disallowed_tools: [],
      mcp_servers: {
        files: { command: 'npx', args: ['server'], env: { A: 'b' } },
        web: { type: 'http', url: 'http://x' },
      },
      mcp_inherit: true,
      append_system_prompt: '@PROMPT.md',
      add_dirs: 'docs',
      permission_mode: 'plan',
      on_denial: 'fail',
    };
    for (const key of GRANT_KEYS) assert.ok(fitsGrantKey(key, grant[key]), key);
    assert.ok(TypeCompiler.Compile(GRANT_AS_WRITTEN).Check(grant));
  });

  it('refuses a malformed value of each key with its one line', () => {
    const cases: [(typeof GRANT_KEYS)[number], unknown, string][] = [
      [
        'tools',
        7,
        'tools must be a list of tool names (or one comma-separated string), like [Read, "Bash(git *)"]',
      ],
      [
        'allowed_tools',
        ['Read', ' '],
        'allowed_tools must be a list of tool names (or one comma-separated string), like [Read, "Bash(git *)"]; " " is not one',
      ],
      [
        'disallowed_tools',
        [null],
        'disallowed_tools must be a list of tool names (or one comma-separated string), like [Read, "Bash(git *)"]; null is not one',
      ],
      [
        'mcp_servers',
        '  ',
        'mcp_servers must be a JSON file (relative to the workflow) or a map of servers',
      ],
      [
        'mcp_servers',
        [1],
        'mcp_servers must be a map of server names to servers ({ command, args } or { url }), or a JSON file of them',
      ],
      ['mcp_inherit', 'yes', 'mcp_inherit must be true or false, not "yes"'],
      [
        'append_system_prompt',
        '',
        'append_system_prompt must be text, or @FILE relative to the workflow',
      ],
      ['add_dirs', ['a', 3], 'add_dirs must be a list of directories'],
      [
        'permission_mode',
        'all',
        'permission_mode must be one of acceptEdits, auto, bypassPermissions, manual, dontAsk, plan, default, not "all"',
      ],
      ['on_denial', null, 'on_denial must be one of warn, fail, not null'],
    ];
    for (const [key, value, message] of cases) {
      assert.equal(fitsGrantKey(key, value), false, key);
      assert.equal(grantKeyProblem(key, value), message);
    }
  });

  it('names the MCP server that is wrong, in a bare map or in { mcpServers }', () => {
    assert.equal(
      mcpServersProblem({ a: 'npx' }),
      'mcp_servers.a must be a mapping like { command: ..., args: [...] } or { url: ... }',
    );
    assert.equal(
      mcpServersProblem({ mcpServers: { b: { args: [] } } }),
      'mcp_servers.b has neither command nor url',
    );
    assert.equal(
      mcpServersProblem({ c: { command: 'x', args: [1] } }),
      'mcp_servers.c.args must be a list of strings',
    );
    assert.equal(
      mcpServersProblem({ d: { url: 'http://x', env: { A: 1 } } }),
      'mcp_servers.d.env must be a map of strings',
    );
    assert.equal(mcpServersProblem({ e: { command: 'x' } }), undefined);
    assert.equal(fitsServerMap({ e: { command: ' ' } }), false);
  });
});
