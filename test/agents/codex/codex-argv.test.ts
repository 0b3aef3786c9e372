import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CODEX_EFFORTS,
  codexArgs,
  codexPrompt,
  sandboxOf,
  type CodexInvocation,
} from '../../../src/agents/codex/codex-argv.js';
import { codexMcpArgs, codexMcpProblem } from '../../../src/agents/codex/codex-mcp.js';

const base: CodexInvocation = { session: { kind: 'fresh' }, skipPermissions: false, options: {} };
const args = (over: Partial<CodexInvocation> = {}) => codexArgs({ ...base, ...over });
const HEAD = ['exec', '--json', '--skip-git-repo-check'];

describe('codexArgs', () => {
  it('runs a fresh turn in workspace-write, the prompt on stdin', () => {
    assert.deepEqual(args(), [...HEAD, '--sandbox', 'workspace-write', '-']);
  });

  it('continues a thread with exec resume and branches one with exec fork, options first', () => {
    assert.deepEqual(args({ session: { kind: 'resume', id: 'T1' }, model: 'gpt-5.5' }), [
      ...HEAD,
      '--sandbox',
      'workspace-write',
      '--model',
      'gpt-5.5',
      'resume',
      'T1',
      '-',
    ]);
    assert.deepEqual(args({ session: { kind: 'fork', from: 'T1' } }).slice(-3), [
      'fork',
      'T1',
      '-',
    ]);
  });

  it('passes the model verbatim and the effort as model_reasoning_effort', () => {
    const a = args({ model: 'openai/gpt-5.5-codex:latest', effort: 'xhigh' });
    assert.deepEqual(a.slice(5, 9), [
      '--model',
      'openai/gpt-5.5-codex:latest',
      '-c',
      'model_reasoning_effort="xhigh"',
    ]);
  });

  it("takes the sandbox from the run's --dangerously-skip-permissions, else the state's permission_mode, else the workflow's option", () => {
    const sandbox = (over: Partial<CodexInvocation>) => args(over).slice(3, -1).join(' ');
    assert.equal(
      sandbox({ skipPermissions: true, grant: { permissionMode: 'plan' } }),
      '--dangerously-bypass-approvals-and-sandbox',
    );
    assert.equal(sandbox({ grant: { permissionMode: 'plan' } }), '--sandbox read-only');
    assert.equal(
      sandbox({ grant: { permissionMode: 'bypassPermissions' } }),
      '--sandbox danger-full-access',
    );
    assert.equal(
      sandbox({ grant: { permissionMode: 'acceptEdits' }, options: { sandbox: 'read-only' } }),
      '--sandbox workspace-write',
    );
    assert.equal(
      sandbox({ options: { sandbox: 'danger-full-access' } }),
      '--sandbox danger-full-access',
    );
    assert.equal(sandbox({ grant: {} }), '--sandbox workspace-write');
    for (const mode of ['default', 'auto', 'manual', 'dontAsk'])
      assert.equal(sandboxOf(mode), 'workspace-write');
  });

  it('gives the grant: extra directories, developer instructions as TOML text, MCP servers', () => {
    const a = args({
      grant: {
        addDirs: ['/data/a', '/data/b'],
        appendSystemPrompt: 'Be "brief".\nAlways.',
        mcpConfig: JSON.stringify({ mcpServers: { docs: { url: 'http://127.0.0.1:9/mcp' } } }),
        mcpInherit: true,
      },
    });
    assert.deepEqual(a.slice(5, -1), [
      '-c',
      'developer_instructions="Be \\"brief\\".\\nAlways."',
      '-c',
      'mcp_servers.docs={ url = "http://127.0.0.1:9/mcp", default_tools_approval_mode = "approve", required = true }',
      '--add-dir',
      '/data/a',
      '--add-dir',
      '/data/b',
    ]);
  });

  it('gives the options: a profile, a provider and its address, config overrides last', () => {
    assert.deepEqual(
      args({
        options: {
          profile: 'work',
          provider: 'acme',
          base_url: 'https://llm.acme.test/v1',
          config: { 'model_providers.acme.env_key': 'ACME_KEY', model_verbosity: 'low' },
        },
      }).slice(5, -1),
      [
        '--profile',
        'work',
        '-c',
        'model_provider="acme"',
        '-c',
        'model_providers.acme.name="acme"',
        '-c',
        'model_providers.acme.base_url="https://llm.acme.test/v1"',
        '-c',
        'model_providers.acme.env_key="ACME_KEY"',
        '-c',
        'model_verbosity="low"',
      ],
    );
  });

  it("gives a base_url without a provider (or with openai) to codex's OpenAI provider", () => {
    const url = 'https://gateway.test/v1';
    assert.deepEqual(args({ options: { base_url: url } }).slice(5, -1), [
      '-c',
      `openai_base_url="${url}"`,
    ]);
    assert.deepEqual(args({ options: { provider: 'openai', base_url: url } }).slice(5, -1), [
      '-c',
      'model_provider="openai"',
      '-c',
      `openai_base_url="${url}"`,
    ]);
  });

  it('never puts the prompt in argv: the last argument is always -', () => {
    for (const session of [
      { kind: 'fresh' },
      { kind: 'resume', id: 'a' },
      { kind: 'fork', from: 'b' },
    ] as const)
      assert.equal(args({ session }).at(-1), '-');
  });

  it('gives an appended system prompt to a new thread as developer instructions, and to a resumed or forked one ahead of the prompt', () => {
    const grant = { appendSystemPrompt: 'Be brief.' };
    assert.ok(args({ grant }).includes('developer_instructions="Be brief."'));
    assert.equal(codexPrompt('Do it.', { kind: 'fresh' }, 'Be brief.'), 'Do it.');
    for (const session of [
      { kind: 'resume', id: 'a' },
      { kind: 'fork', from: 'b' },
    ] as const) {
      assert.ok(!args({ session, grant }).some((a) => a.startsWith('developer_instructions')));
      assert.equal(
        codexPrompt('Do it.', session, 'Be brief.'),
        '<system_instructions>\nBe brief.\n</system_instructions>\n\nDo it.',
      );
      assert.equal(codexPrompt('Do it.', session, undefined), 'Do it.');
    }
  });

  it("knows codex's reasoning levels", () => {
    assert.deepEqual(CODEX_EFFORTS, ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']);
  });
});

describe('MCP servers of a grant', () => {
  const config = (servers: Record<string, unknown>) => JSON.stringify({ mcpServers: servers });

  it("adds each server beside the user's, approved and required", () => {
    assert.deepEqual(
      codexMcpArgs(
        config({
          fs: { command: 'npx', args: ['-y', 'fs-server', '/tmp'], env: { A: '1' }, type: 'stdio' },
          web: { type: 'http', url: 'https://mcp.test/', headers: { Authorization: 'Bearer x' } },
        }),
      ),
      [
        '-c',
        'mcp_servers.fs={ command = "npx", args = ["-y", "fs-server", "/tmp"], env = { A = "1" }, default_tools_approval_mode = "approve", required = true }',
        '-c',
        'mcp_servers.web={ url = "https://mcp.test/", http_headers = { Authorization = "Bearer x" }, default_tools_approval_mode = "approve", required = true }',
      ],
    );
  });

  it("refuses servers without mcp_inherit (codex always starts the user's), and names it cannot put in a -c path", () => {
    assert.match(
      codexMcpProblem(config({ fs: { command: 'x' } }), false)!,
      /add mcp_inherit: true/,
    );
    assert.equal(codexMcpProblem(config({ 'fs-2_b': { command: 'x' } }), true), undefined);
    assert.equal(
      codexMcpProblem(config({ 'my.fs': { command: 'x' } }), true),
      'mcp_servers: the codex backend takes server names of letters, digits, _ and - only, not "my.fs"',
    );
  });
});
