import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { lintWorkflow } from '../../src/analysis/lint-workflow.js';
import { loadWorkflowGraph } from '../../src/analysis/workflow-graph.js';
import { Sandbox, sh } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());
let n = 0;

/** Lints a workflow made of these files; each finding as `FILE check`. */
async function lint(files: Record<string, string>): Promise<string[]> {
  const dir = box.write(files, `wf${++n}`);
  // Info findings (every script state has one) are left to the tests that ask for them.
  const findings = lintWorkflow(await loadWorkflowGraph(dir)).filter((f) => f.severity !== 'info');
  return findings.map((f) => `${f.file.slice(dir.length + 1) || '.'} ${f.check}`);
}

const result = (payload = 'done') => sh(`echo "<result>${payload}</result>"`);

describe('lint rules', () => {
  it('checks grants: unknown tools warn; a missing or malformed MCP file, a missing prompt file, a bad add_dirs, a key pi cannot honour are errors', async () => {
    assert.deepEqual(
      await lint({
        'START.md':
          '---\ntools: [Read, Grep, "Bash(git *)", mcp__gh__list]\nallowed_tools: [Bsh]\n---\n<result>x</result>',
      }),
      ['START.md unknown-tool'],
    );
    assert.deepEqual(
      await lint({ 'START.md': '---\nmcp_servers: none.json\n---\n<result>x</result>' }),
      ['START.md bad-grant-file'],
    );
    assert.deepEqual(
      await lint({
        'START.md': '---\nmcp_servers: s.json\n---\n<result>x</result>',
        's.json': '{"mcpServers": {"a": {"args": []}}}',
      }),
      ['START.md bad-grant-file'],
    );
    assert.deepEqual(
      await lint({
        'START.md':
          '---\nmcp_servers: s.json\nappend_system_prompt: "@rules.txt"\n---\n<result>x</result>',
        's.json': '{"mcpServers": {"a": {"command": "x"}}}',
        'rules.txt': 'r',
      }),
      [],
    );
    assert.deepEqual(
      await lint({
        'START.md':
          '---\nappend_system_prompt: "@gone.txt"\nadd_dirs: [/no/such/dir, "~/x", sub]\n---\n<result>x</result>',
      }),
      ['START.md bad-grant-file', 'START.md bad-add-dir', 'START.md bad-add-dir'],
    );
    assert.deepEqual(
      await lint({
        'workflow.yaml': 'backend: pi\n',
        'START.md': '---\nmcp_servers: { a: { command: x } }\n---\n<result>x</result>',
      }),
      ['START.md unsupported-grant'],
    );
    assert.deepEqual(
      await lint({
        'workflow.yaml': 'backend: pi\ntools: [Read, Grep]\n',
        'START.md': '<result>x</result>',
      }),
      [],
    );
    assert.deepEqual(
      await lint({
        'workflow.yaml': 'backend: pi\ntools: [Read, WebFetch]\n',
        'START.md': '<result>x</result>',
      }),
      ['START.md unsupported-grant'],
    );
  });

  it('claims no unreachable state when a dynamic target could reach it', async () => {
    assert.deepEqual(
      await lint({
        'START.sh': sh('echo "<goto>$NEXT</goto>"'),
        'A.sh': result(),
        'B.sh': result(),
      }),
      [],
    );
  });

  it('does not call a dead end what it cannot read', async () => {
    assert.deepEqual(
      await lint({ 'START.sh': sh('echo "<goto>A.md</goto>"'), 'A.md': '---\nmodel: [x\n---\nHi' }),
      ['A.md bad-frontmatter'],
    );
  });

  it('reports a dead end only where a run can get to', async () => {
    assert.deepEqual(await lint({ 'START.sh': result(), 'NOTES.md': 'Just notes.' }), [
      'NOTES.md unreachable-state',
    ]);
    assert.deepEqual(await lint({ 'START.md': '---\nallowed_transitions: []\n---\nThink.' }), [
      'START.md no-way-out',
    ]);
  });

  it('accepts forks whose parent continues at a <goto>', async () => {
    const start = sh(
      'for i in 1 2; do echo "<fork item=\\"$i\\">W.sh</fork>"; done',
      'echo "<goto>DONE.sh</goto>"',
    );
    assert.deepEqual(await lint({ 'START.sh': start, 'W.sh': result(), 'DONE.sh': result() }), []);
  });

  it('accepts a policy call without return when the prompt names it', async () => {
    const start =
      '---\nallowed_transitions:\n  - { tag: call, target: SUB }\n---\nReply with <call return="AFTER.md">SUB</call>';
    assert.deepEqual(
      await lint({
        'START.md': start,
        'SUB.sh': result(),
        'AFTER.md': 'Reply with <result>x</result>',
      }),
      [],
    );
  });

  it('follows a callee frame through goto, reset and nested calls, not into them', async () => {
    const files = {
      'START.sh': sh('echo "<call return=\\"AFTER.sh\\">SUB.sh</call>"'),
      'SUB.sh': sh('echo "<call return=\\"SUB2.sh\\">LEAF.sh</call>"'),
      'LEAF.sh': result(),
      'SUB2.sh': sh('echo "<reset>SUB2.sh</reset>"'),
      'AFTER.sh': result(),
    };
    assert.deepEqual(await lint(files), ['SUB.sh callee-without-result']);
    assert.deepEqual(
      await lint({ ...files, 'SUB2.sh': sh('echo "<goto>END.sh</goto>"'), 'END.sh': result() }),
      [],
    );
  });

  it('does not ask the prompt to mention an implicit transition', async () => {
    const start =
      '---\nallowed_transitions:\n  - { tag: goto, target: NEXT.md }\n---\nWrite the file, then stop.';
    assert.deepEqual(await lint({ 'START.md': start, 'NEXT.md': '<result>x</result>' }), []);
  });

  it('matches prompt tags and policy entries like the runtime does', async () => {
    const start = [
      '---',
      'allowed_transitions:',
      '  - { tag: fork, target: W, next: DONE }',
      '  - { tag: goto, target: DONE }',
      '---',
      'Reply with <fork next="DONE.md" item="a">W.md</fork> and <goto>DONE.md</goto>, or <reset>DONE.md</reset>',
    ].join('\n');
    assert.deepEqual(
      await lint({
        'START.md': start,
        'W.md': '<result>w</result>',
        'DONE.md': '<result>d</result>',
      }),
      ['START.md tag-not-allowed'],
    );
  });

  it("reads a policy entry's attributes: list, and refuses a prompt tag with an attribute it does not list", async () => {
    const policy =
      '---\nallowed_transitions:\n  - { tag: fork, target: W, next: DONE, attributes: [item] }\n---\n';
    const files = { 'W.md': '<result>w</result>', 'DONE.md': '<result>d</result>' };
    assert.deepEqual(
      await lint({
        ...files,
        'START.md': `${policy}Reply with <fork next="DONE" item="{{x}}">W</fork>`,
      }),
      [],
    );
    assert.deepEqual(
      await lint({
        ...files,
        'START.md': `${policy}Reply with <fork next="DONE" item="a" input="b">W</fork>`,
      }),
      ['START.md tag-not-allowed'],
    );
  });

  it('warns when a fork gives a script an attribute it cannot read under its own name, not a prompt', async () => {
    const policy =
      '---\nallowed_transitions:\n  - { tag: fork, target: W, next: DONE, attributes: [item, Priority] }\n---\n';
    const prompt = `${policy}Reply with <fork next="DONE" item="a" Priority="high">W</fork>`;
    assert.deepEqual(
      await lint({ 'START.md': prompt, 'W.sh': result(), 'DONE.md': '<result>d</result>' }),
      ['START.md attribute-not-in-env'],
    );
    assert.deepEqual(
      await lint({
        'START.md': prompt,
        'W.md': '{{Priority}} <result>w</result>',
        'DONE.md': '<result>d</result>',
      }),
      [],
    );
  });

  it('checks worktree, base, sparse and cd as a run would, and a sparse built at run time only for being there', async () => {
    const fork = (attrs: string) => sh(`echo "<fork next=\\"DONE.sh\\" ${attrs}>W.sh</fork>"`);
    const files = (start: string) => ({ 'START.sh': start, 'W.sh': result(), 'DONE.sh': result() });
    assert.deepEqual(await lint(files(fork('worktree=\\"w\\" sparse=\\"pkg/$p src\\"'))), []);
    assert.deepEqual(await lint(files(fork('sparse=\\"src\\"'))), [
      'START.sh bad-worktree-attributes',
    ]);
    assert.deepEqual(await lint(files(fork('worktree=\\"w\\" sparse=\\"../up\\"'))), [
      'START.sh bad-worktree-attributes',
    ]);
    assert.deepEqual(await lint(files(fork('worktree=\\"w\\" cd=\\"x\\"'))), [
      'START.sh bad-worktree-attributes',
    ]);
  });

  it('reports ambiguous return and next states as ambiguous targets', async () => {
    const files = {
      'START.sh': sh(
        'echo "<call return=\\"B\\">C.sh</call>"',
        'echo "<fork next=\\"B\\">C.sh</fork>"',
      ),
      'B.md': '<result>b</result>',
      'B.sh': result(),
      'C.sh': result(),
    };
    assert.deepEqual(await lint(files), ['START.sh ambiguous-target', 'START.sh ambiguous-target']);
  });
});
