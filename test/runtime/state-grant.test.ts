import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RaymondError } from '../../src/errors.js';
import { openScope, type Scope } from '../../src/scope/scope.js';
import { layeredGrant, resolveGrant } from '../../src/runtime/state-grant.js';

describe('layeredGrant', () => {
  it("lays the state's grant over the workflow's over the config's, adding up disallowed tools", () => {
    const out = layeredGrant(
      { tools: ['Read'], disallowedTools: ['WebFetch'], permissionMode: 'plan' },
      { tools: ['Read', 'Edit'], disallowedTools: ['Bash'] },
      { allowedTools: ['Edit'] },
    );
    assert.deepEqual(out, {
      tools: ['Read', 'Edit'],
      disallowedTools: ['WebFetch', 'Bash'],
      permissionMode: 'plan',
      allowedTools: ['Edit'],
    });
    assert.deepEqual(layeredGrant(undefined, undefined, undefined), {});
  });
});

describe('resolveGrant', () => {
  let dir: string;
  let scope: Scope;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'raymond-grant-'));
    mkdirSync(join(dir, 'wf'));
    mkdirSync(join(dir, 'docs'));
    writeFileSync(join(dir, 'wf', 'START.md'), 'hi');
    writeFileSync(join(dir, 'wf', 'system.txt'), 'Be brief.\n');
    writeFileSync(
      join(dir, 'wf', 'mcp.json'),
      JSON.stringify({ mcpServers: { files: { command: 'files-server' } } }),
    );
    scope = await openScope(join(dir, 'wf'));
  });
  after(async () => {
    await scope.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives nothing for a grant that sets nothing (on_denial alone included)', async () => {
    assert.equal(await resolveGrant({}, scope, dir, 'START.md'), undefined);
    assert.equal(await resolveGrant({ onDenial: 'fail' }, scope, dir, 'START.md'), undefined);
  });

  it("reads an @FILE system prompt and an MCP file from the workflow, and resolves add_dirs against the agent's directory", async () => {
    const out = await resolveGrant(
      {
        appendSystemPrompt: '@system.txt',
        mcpServers: 'mcp.json',
        addDirs: ['docs'],
        tools: ['Read'],
      },
      scope,
      dir,
      'START.md',
    );
    assert.equal(out?.appendSystemPrompt?.trim(), 'Be brief.');
    assert.deepEqual(JSON.parse(out.mcpConfig!), {
      mcpServers: { files: { command: 'files-server' } },
    });
    assert.deepEqual(out?.addDirs, [join(dir, 'docs')]);
    assert.deepEqual(out?.tools, ['Read']);
    const inline = await resolveGrant(
      { appendSystemPrompt: 'plain', mcpServers: { x: { command: 'y' } } },
      scope,
      dir,
      'START.md',
    );
    assert.equal(inline?.appendSystemPrompt, 'plain');
    assert.deepEqual(JSON.parse(inline.mcpConfig!), { mcpServers: { x: { command: 'y' } } });
  });

  it('refuses an add_dirs entry that is not a directory, naming the state', async () => {
    await assert.rejects(
      resolveGrant({ addDirs: ['nope'] }, scope, dir, 'START.md'),
      (err: unknown) =>
        err instanceof RaymondError &&
        err.code === 'ERR_GRANT' &&
        err.file === 'START.md' &&
        err.message === `add_dirs: "nope" is not a directory (resolved to ${join(dir, 'nope')})`,
    );
  });
});
