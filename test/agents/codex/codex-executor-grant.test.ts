import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { RunEvent } from '../../../machines/run-events.js';
import { ROOT } from '../../helpers/cli.js';
import { CodexTurns } from './codex-turns.js';

describe('the codex executor: sandbox, grant and options (real codex)', () => {
  const c = new CodexTurns();
  before(() => c.start());
  after(() => c.stop());

  it('under workspace-write writes inside its folder and is refused outside it; plan is read-only even inside', async () => {
    const sibling = join(c.sb.dir, 'sibling');
    mkdirSync(sibling);
    c.sb.server.on('write around', {
      command: `touch inside.txt; touch ${sibling}/outside.txt; touch /opt/raymond-codex-test.txt; true`,
      text: 'done',
    });
    c.sb.server.on('plan write', { command: 'touch planned.txt; true', text: 'done' });
    await c.run({ prompt: 'write around' });
    assert.ok(existsSync(join(c.work, 'inside.txt')));
    assert.ok(!existsSync(join(sibling, 'outside.txt')));
    assert.ok(!existsSync('/opt/raymond-codex-test.txt'));
    assert.match(c.sb.server.requestsFor('write around')[1]!.toolOutput, /Read-only file system/);
    await c.run({ prompt: 'plan write', grant: { permissionMode: 'plan' } });
    assert.ok(!existsSync(join(c.work, 'planned.txt')));
    assert.match(c.sb.server.requestsFor('plan write')[1]!.toolOutput, /Read-only file system/);
  });

  it('reports a command that asks to leave the sandbox, which codex refuses, as a denial', async () => {
    c.sb.server.on('escalate', {
      command: 'touch /opt/raymond-codex-escalated.txt',
      commandArgs: { sandbox_permissions: 'require_escalated', justification: 'needs /opt' },
      text: 'done',
    });
    const seen: RunEvent[] = [];
    const out = await c.run({ prompt: 'escalate' }, { ...c.runtime, emit: (e) => seen.push(e) });
    assert.deepEqual(out.denials, ['shell(a command that asked to run outside the sandbox)']);
    assert.ok(seen.some((e) => e.type === 'permission.denied' && e.tool === 'shell'));
    assert.ok(!existsSync('/opt/raymond-codex-escalated.txt'));
  });

  it('add_dirs makes another folder writable', async () => {
    const extra = join(c.sb.dir, 'extra');
    mkdirSync(extra);
    c.sb.server.on('add dir', { command: `touch ${extra}/added.txt; true`, text: 'done' });
    await c.run({ prompt: 'add dir', grant: { addDirs: [extra] } });
    assert.ok(existsSync(join(extra, 'added.txt')));
  });

  it('gives codex the effort, the appended system prompt (as TOML, then ahead of a resumed prompt) and the options', async () => {
    c.sb.server.on('settings', { text: 'ok' });
    c.sb.server.on('resumed settings', { text: 'ok' });
    const text = 'Say "hi" \\ then\nnewline\ttab — ünïcode';
    const first = await c.run({
      prompt: 'settings',
      effort: 'high',
      grant: { appendSystemPrompt: text },
      options: { config: { model_reasoning_summary: 'detailed' } },
    });
    const req = c.sb.server.requestsFor('settings')[0]!;
    assert.equal(req.effort, 'high');
    assert.ok(req.developer.includes(text), req.developer.slice(-300));
    assert.equal((req.body.reasoning as { summary?: string } | undefined)?.summary, 'detailed');
    await c.run({
      prompt: 'resumed settings',
      session: { kind: 'resume', session: first.session! },
      grant: { appendSystemPrompt: 'SECOND-STATE-INSTRUCTIONS' },
    });
    const resumed = c.sb.server.requestsFor('resumed settings')[0]!;
    assert.match(
      resumed.prompt,
      /^<system_instructions>\nSECOND-STATE-INSTRUCTIONS\n<\/system_instructions>\n\nresumed settings$/,
    );
  });

  it("adds a state's MCP servers to the user's (mcp_inherit) and runs their tools without asking", async () => {
    const sdk = (f: string) =>
      pathToFileURL(join(ROOT, 'node_modules/@modelcontextprotocol/sdk/dist/esm/server', f)).href;
    const script = join(c.sb.dir, 'mcp-ping.mjs');
    const started = join(c.sb.dir, 'mcp-started.log');
    writeFileSync(
      script,
      [
        "import { appendFileSync } from 'node:fs';",
        `import { McpServer } from '${sdk('mcp.js')}';`,
        `import { StdioServerTransport } from '${sdk('stdio.js')}';`,
        `appendFileSync(${JSON.stringify(started)}, process.env.PING_WORD + '\\n');`,
        "const server = new McpServer({ name: 'ping', version: '1.0.0' });",
        "server.tool('ping', 'Answers pong', async () => ({ content: [{ type: 'text', text: `pong ${process.env.PING_WORD}` }] }));",
        'await server.connect(new StdioServerTransport());',
      ].join('\n'),
    );
    const node = JSON.stringify(process.execPath);
    const home = join(c.sb.dir, 'mcp-home');
    c.sb.writeConfig(home);
    writeFileSync(
      join(home, 'config.toml'),
      `${readFileSync(join(home, 'config.toml'), 'utf8')}[mcp_servers.users]\ncommand = ${node}\nargs = [${JSON.stringify(script)}]\nenv = { PING_WORD = "users" }\n`,
    );
    const mine = { command: process.execPath, args: [script], env: { PING_WORD: 'word "quoted"' } };
    const mcpConfig = JSON.stringify({ mcpServers: { mine } });
    c.sb.server.on('mcp call', { call: { name: 'ping', namespace: 'mcp__mine' }, text: 'ok' });
    await c.run({
      prompt: 'mcp call',
      env: { CODEX_HOME: home },
      grant: { mcpConfig, mcpInherit: true },
    });
    const [first, second] = c.sb.server.requestsFor('mcp call');
    assert.ok(first!.tools.includes('mcp__mine'), first!.tools.join(' '));
    assert.match(second!.toolOutput, /pong word "quoted"/);
    assert.deepEqual(readFileSync(started, 'utf8').split('\n').filter(Boolean).sort(), [
      'users',
      'word "quoted"',
    ]);
    // codex starts the user's servers whatever -c says: without mcp_inherit the grant is refused.
    const err = await c.failure({ prompt: 'mcp call', grant: { mcpConfig } });
    assert.equal(err.code, 'ERR_AGENT_REFUSED');
    assert.match(err.message, /add mcp_inherit: true/);
  });
});
