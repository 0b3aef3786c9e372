import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT, raymond, summary } from '../../helpers/cli.js';
import { ClaudeSandbox, PASS_QUESTIONS } from '../../helpers/claude-sandbox.js';
import type { ApiRequest, Reply } from '../../helpers/api-server.js';

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

/** A `--claude-bin` that logs the flags of each process it starts, then becomes the real `claude`. */
function loggingClaude(name: string): { bin: string; starts: () => string[] } {
  const log = join(box.dir, `${name}.starts`);
  const bin = join(box.dir, `${name}-claude`);
  writeFileSync(
    bin,
    `#!/usr/bin/env bash\n${PASS_QUESTIONS}\necho "$*" >> '${log}'\nexec claude "$@"\n`,
  );
  chmodSync(bin, 0o755);
  return {
    bin,
    starts: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []),
  };
}

/** A state's turn: first a tool call, then, after its result, the text. */
function toolThen(tool: Reply['toolUse'], text: string): (r: ApiRequest) => Reply {
  return (r) => (r.afterTool ? { text } : { toolUse: tool });
}

describe('grants per state (real claude, scripted API)', () => {
  it('a state with tools: [Read] cannot run Bash even with --dangerously-skip-permissions; the next state can, in the same session', async () => {
    const claude = loggingClaude('readonly');
    box.server.on(
      'RO-READER',
      toolThen({ name: 'Bash', input: { command: 'touch blocked.txt' } }, '<goto>WORK</goto>'),
    );
    box.server.on(
      'RO-WORKER',
      toolThen({ name: 'Bash', input: { command: 'touch allowed.txt' } }, '<result>done</result>'),
    );
    const wf = box.write(
      {
        'START.md': '---\ntools: [Read]\n---\nRO-READER: look only',
        'WORK.md': 'RO-WORKER: now act',
      },
      'readonly',
    );
    const cwd = box.dir;
    const r = await box.run(
      [
        wf,
        '--json',
        '--workflow-id',
        'ro',
        '--claude-bin',
        claude.bin,
        '--dangerously-skip-permissions',
      ],
      { IS_SANDBOX: '1' },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'done');
    assert.ok(!existsSync(join(cwd, 'blocked.txt')), 'the read-only state ran no Bash');
    assert.match(r.stderr, /\[main\] denied: Bash\(touch blocked\.txt\)/, 'and said so');
    assert.deepEqual(
      (
        JSON.parse(r.stdout) as { permission_denials: Array<{ tool: string }> }
      ).permission_denials.map((d) => d.tool),
      ['Bash'],
    );
    assert.ok(existsSync(join(cwd, 'allowed.txt')), 'the next state did');
    const [reader] = box.server.requestsFor('RO-READER');
    assert.ok(
      reader!.tools.includes('Read') && !reader!.tools.includes('Bash'),
      `offered: ${reader!.tools.join(', ')}`,
    );
    const starts = claude.starts();
    assert.equal(starts.length, 2, `a process per grant: ${starts.join(' | ')}`);
    assert.match(starts[0]!, /--tools Read .*--strict-mcp-config/);
    assert.doesNotMatch(starts[1]!, /--tools/);
    assert.match(
      starts[1]!,
      /--resume [0-9a-f-]{36}/,
      'the second grant resumes the session in a new process',
    );
  });

  it('append_system_prompt (text and @FILE) reaches the system prompt; add_dirs lets a state write outside its directory', async () => {
    box.server.on('ASP-ONE', { text: '<goto>TWO</goto>' });
    box.server.on(
      'ASP-TWO',
      toolThen(
        {
          name: 'Write',
          input: { file_path: join(box.dir, 'asp-extra', 'note.txt'), content: 'hi' },
        },
        '<result>wrote</result>',
      ),
    );
    mkdirSync(join(box.dir, 'asp-extra'));
    const wf = box.write(
      {
        'START.md': '---\nappend_system_prompt: "INLINE-SYSTEM-MARKER"\n---\nASP-ONE: go',
        'TWO.md':
          '---\nappend_system_prompt: "@house-rules.txt"\nadd_dirs: [asp-extra]\n---\nASP-TWO: write',
        'house-rules.txt': 'FILE-SYSTEM-MARKER: be brief',
      },
      'asp',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'asp']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'wrote');
    assert.match(box.server.requestsFor('ASP-ONE')[0]!.system, /INLINE-SYSTEM-MARKER/);
    const two = box.server.requestsFor('ASP-TWO')[0]!;
    assert.match(two.system, /FILE-SYSTEM-MARKER: be brief/);
    assert.doesNotMatch(two.system, /INLINE-SYSTEM-MARKER/, "a state's system prompt is its own");
    assert.equal(
      readFileSync(join(box.dir, 'asp-extra', 'note.txt'), 'utf8'),
      'hi',
      'the Write outside the directory was allowed by add_dirs',
    );
  });

  it('an add_dirs entry that is not a directory fails the state with one line naming it', async () => {
    const wf = box.write({ 'START.md': '---\nadd_dirs: [no-such-dir]\n---\nNOPE: x' }, 'baddir');
    const r = await box.run([wf, '--workflow-id', 'baddir']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      /START\.md: add_dirs: "no-such-dir" is not a directory \(resolved to .*no-such-dir\)/,
    );
    assert.equal(box.server.requestsFor('NOPE').length, 0);
  });

  it("workflow.yaml grant keys are every state's defaults; a state's own replace them", async () => {
    const claude = loggingClaude('defaults');
    box.server.on('DEF-A', { text: '<goto>B</goto>' });
    box.server.on('DEF-B', { text: '<result>ok</result>' });
    const wf = box.write(
      {
        'workflow.yaml': 'tools: [Read, Grep]\n',
        'START.md': 'DEF-A: a',
        'B.md': '---\ntools: "Read, Bash(git status:*), Edit"\n---\nDEF-B: b',
      },
      'defaults',
    );
    const r = await box.run([
      wf,
      '--json',
      '--workflow-id',
      'defaults',
      '--claude-bin',
      claude.bin,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const [a, b] = [box.server.requestsFor('DEF-A')[0]!, box.server.requestsFor('DEF-B')[0]!];
    assert.deepEqual(a.tools.filter((t) => ['Read', 'Grep', 'Bash', 'Edit'].includes(t)).sort(), [
      'Grep',
      'Read',
    ]);
    assert.deepEqual(b.tools.filter((t) => ['Read', 'Grep', 'Bash', 'Edit'].includes(t)).sort(), [
      'Bash',
      'Edit',
      'Read',
    ]);
  });

  it('allowed_tools lets exactly that command run without skip-permissions; a denied call is shown, counted and listed in --json', async () => {
    const calls: Reply[] = [
      { toolUse: { name: 'Bash', input: { command: 'touch granted.txt' } } },
      { toolUse: { name: 'Bash', input: { command: 'git init -q refused-repo' } } },
      { text: '<result>tried</result>' },
    ];
    box.server.on('ALLOW-TOUCH', (_r, n) => calls[n - 1]!);
    const wf = box.write(
      { 'START.md': '---\nallowed_tools: ["Bash(touch:*)"]\n---\nALLOW-TOUCH: go' },
      'allow',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'allow']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(existsSync(join(box.dir, 'granted.txt')), 'the pre-approved command ran');
    assert.ok(!existsSync(join(box.dir, 'refused-repo')), 'the other did not');
    assert.match(r.stderr, /\[main\] denied: Bash\(git init -q refused-repo\)/);
    assert.match(r.stderr, /run allow completed: .*; 1 tool call denied;/);
    const out = JSON.parse(r.stdout) as { permission_denials: unknown[] };
    assert.deepEqual(out.permission_denials, [
      {
        agent: 'main',
        state: 'START.md',
        tool: 'Bash',
        input: { command: 'git init -q refused-repo' },
      },
    ]);
    assert.match(
      readFileSync(join(box.dir, '.raymond/debug/allow/transitions.log'), 'utf8'),
      /\[main\] START\.md denied: Bash\(git init -q refused-repo\)/,
    );
  });

  it('on_denial: fail fails the step, and so the agent, instead of going on', async () => {
    box.server.on(
      'FAIL-DENIED',
      toolThen({ name: 'Bash', input: { command: 'git init -q nope-repo' } }, '<goto>NEXT</goto>'),
    );
    box.server.on('FAIL-NEXT', { text: '<result>should not run</result>' });
    const wf = box.write(
      { 'START.md': '---\non_denial: fail\n---\nFAIL-DENIED: go', 'NEXT.md': 'FAIL-NEXT' },
      'ondenial',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'ondenial']);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(summary(r).status, 'failed');
    assert.match(
      r.stderr,
      /START\.md: 1 tool call was denied \(on_denial: fail\): Bash\(git init -q nope-repo\)/,
    );
    assert.equal(box.server.requestsFor('FAIL-NEXT').length, 0);
  });

  it('an MCP server (a small stdio one) is available in the state that names it, and absent in the next', async () => {
    const server = join(ROOT, 'test/fixtures/mcp/stamp-server.mjs');
    box.server.on(
      'MCP-ONE',
      toolThen(
        { name: 'mcp__stamp__stamp', input: { text: 'stamped by MCP' } },
        '<goto>TWO</goto>',
      ),
    );
    box.server.on('MCP-TWO', { text: '<result>done</result>' });
    const wf = box.write(
      {
        'servers.json': JSON.stringify({
          mcpServers: {
            stamp: {
              command: process.execPath,
              args: [server],
              env: { STAMP_FILE: join(box.dir, 'mcp-stamp.txt') },
            },
          },
        }),
        'START.md':
          '---\nmcp_servers: servers.json\nallowed_tools: [mcp__stamp__stamp]\n---\nMCP-ONE: stamp it',
        'TWO.md': 'MCP-TWO: go on',
      },
      'mcp',
    );
    // Claude Code lists MCP tools by name only without tool search.
    const r = await box.run([wf, '--json', '--workflow-id', 'mcp'], {
      ENABLE_TOOL_SEARCH: 'false',
    });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(
      (JSON.parse(r.stdout) as { permission_denials: unknown[] }).permission_denials,
      [],
    );
    assert.equal(
      readFileSync(join(box.dir, 'mcp-stamp.txt'), 'utf8'),
      'stamped by MCP',
      'the MCP tool ran',
    );
    assert.ok(box.server.requestsFor('MCP-ONE')[0]!.tools.includes('mcp__stamp__stamp'));
    assert.ok(
      !box.server.requestsFor('MCP-TWO')[0]!.tools.includes('mcp__stamp__stamp'),
      'the next state has no such server',
    );
  });

  it('a missing or malformed MCP server file fails the state with one line naming it', async () => {
    const wf = box.write(
      { 'START.md': '---\nmcp_servers: gone.json\n---\nMCP-GONE: x' },
      'mcpgone',
    );
    const r = await box.run([wf, '--workflow-id', 'mcpgone']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      /START\.md: mcp_servers: cannot read "gone\.json" \(relative to the workflow\)/,
    );
    const bad = box.write(
      { 'START.md': '---\nmcp_servers: s.json\n---\nMCP-BAD: x', 's.json': '{"mcpServers": ' },
      'mcpbad',
    );
    const r2 = await box.run([bad, '--workflow-id', 'mcpbad']);
    assert.equal(r2.code, 1, r2.stderr);
    assert.match(r2.stderr, /START\.md: mcp_servers file "s\.json": not valid JSON/);
    assert.equal(
      box.server.requestsFor('MCP-GONE').length + box.server.requestsFor('MCP-BAD').length,
      0,
    );
  });

  it("a YAML workflow's top-level keys are its states' defaults; the config's on_denial and tools are the defaults under them", async () => {
    const project = join(box.dir, 'cfg-project');
    mkdirSync(join(project, '.raymond'), { recursive: true });
    writeFileSync(
      join(project, '.raymond/config.toml'),
      '[raymond]\non_denial = "fail"\ntools = ["Read", "Bash"]\n',
    );
    box.server.on(
      'YAML-A',
      toolThen({ name: 'Bash', input: { command: 'git init -q yaml-refused' } }, '<goto>B</goto>'),
    );
    box.server.on('YAML-B', { text: '<result>not reached</result>' });
    writeFileSync(
      join(project, 'flow.yaml'),
      'tools: [Read, Grep]\nstates:\n  START:\n    prompt: "YAML-A: go"\n    tools: [Read, Bash]\n  B:\n    prompt: "YAML-B"\n',
    );
    const r = await raymond([join(project, 'flow.yaml'), '--json', '--workflow-id', 'yamlgrant'], {
      cwd: project,
      env: box.env(),
    });
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      /1 tool call was denied \(on_denial: fail\): Bash\(git init -q yaml-refused\)/,
      "the config's on_denial held",
    );
    assert.ok(
      box.server.requestsFor('YAML-A')[0]!.tools.includes('Bash'),
      "the state's own tools beat the workflow's",
    );
    writeFileSync(
      join(project, 'flow.yaml'),
      'tools: [Read, Grep]\nstates:\n  START:\n    prompt: "YAML-C: go <result>x</result>"\n',
    );
    box.server.on('YAML-C', { text: '<result>c</result>' });
    const r2 = await raymond(
      [join(project, 'flow.yaml'), '--json', '--workflow-id', 'yamlgrant2'],
      { cwd: project, env: box.env() },
    );
    assert.equal(r2.code, 0, r2.stderr);
    assert.deepEqual(
      box.server
        .requestsFor('YAML-C')[0]!
        .tools.filter((t) => ['Read', 'Grep', 'Bash'].includes(t))
        .sort(),
      ['Grep', 'Read'],
      "the workflow's tools beat the config's",
    );
  });
});
