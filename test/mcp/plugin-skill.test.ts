import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { pluginToolName, skillDescription, skillMarkdown } from '../../src/mcp/plugin-skill.js';
import type { WorkflowEntry } from '../../src/scope/workflow-manifest.js';

function entry(over: Partial<WorkflowEntry> = {}): WorkflowEntry {
  return {
    id: 'review',
    name: 'review',
    description: '',
    input: { mode: 'optional', label: '', description: '' },
    default_budget: 0,
    requires_human_input: false,
    backend: 'claude',
    path: '/x/review',
    ...over,
  };
}

function split(markdown: string): { front: Record<string, unknown>; body: string } {
  const m = /^---\n([\s\S]*?)\n---\n\n([\s\S]*)$/.exec(markdown);
  assert.ok(m, 'frontmatter, a blank line, then the body');
  return { front: parse(m[1]!) as Record<string, unknown>, body: m[2]! };
}

describe('pluginToolName', () => {
  it("is Claude Code's name for a plugin server's tool, its names normalized", () => {
    assert.equal(pluginToolName('docs', 'export'), 'mcp__plugin_docs_raymond__export');
    assert.equal(pluginToolName('my.docs', 'export'), 'mcp__plugin_my_docs_raymond__export');
  });
});

describe('skillDescription', () => {
  it('says what the workflow does, what its input is, and when to use it', () => {
    const d = skillDescription(
      entry({
        description: 'Reviews a change until it passes',
        input: { mode: 'required', label: 'Change', description: 'a branch or a diff.' },
      }),
    );
    assert.equal(
      d,
      'Reviews a change until it passes. Input: Change (a branch or a diff). Use it when the user asks for this or the task at hand matches it: it runs the Raymond workflow "review" through an MCP tool.',
    );
  });

  it('falls back on the name without a description, says no input for mode none, and stays within 1024 characters', () => {
    assert.match(
      skillDescription(
        entry({ name: 'Review loop', input: { mode: 'none', label: 'x', description: '' } }),
      ),
      /^Runs the workflow Review loop\. Use it when/,
    );
    const long = skillDescription(entry({ description: 'word '.repeat(400) }));
    assert.equal(long.length, 1024);
    assert.ok(long.endsWith('…'));
  });
});

describe('skillMarkdown', () => {
  it('has frontmatter Claude Code reads back exactly, whatever the description holds', () => {
    const description = 'Fixes: "quoted" things\n---\nand # more';
    const { front } = split(skillMarkdown(entry({ description }), 'plug', 'review'));
    assert.equal(front.name, 'review');
    assert.equal(front.description, skillDescription(entry({ description })));
    assert.deepEqual(front['allowed-tools'], [
      'mcp__plugin_plug_raymond__review',
      'mcp__plugin_plug_raymond__raymond_status',
      'mcp__plugin_plug_raymond__raymond_answer',
      'mcp__plugin_plug_raymond__raymond_cancel',
    ]);
  });

  it('names the tool, its arguments, and how to follow a run and answer its questions', () => {
    const { body } = split(skillMarkdown(entry(), 'plug', 'review'));
    assert.match(body, /^# review\n/);
    assert.match(body, /calling the MCP tool `mcp__plugin_plug_raymond__review` with:/);
    for (const arg of [
      'input',
      'budget',
      'budget_hard',
      'model',
      'working_directory',
      'wait_seconds',
    ])
      assert.match(body, new RegExp(`^- \`${arg}\``, 'm'), arg);
    assert.match(body, /without it, the server's default/);
    assert.match(
      body,
      /Call `mcp__plugin_plug_raymond__raymond_status` with `\{"run_id": \.\.\.\}`/,
    );
    assert.match(
      body,
      /`mcp__plugin_plug_raymond__raymond_answer` with `\{"run_id": \.\.\., "ask_id": \.\.\., "answer": \.\.\.\}`/,
    );
    assert.match(body, /`mcp__plugin_plug_raymond__raymond_cancel`/);
    assert.doesNotMatch(body, /This workflow asks questions/);
  });

  it("says a workflow's default budget, that it takes no input, and that it asks", () => {
    const { body } = split(
      skillMarkdown(
        entry({
          input: { mode: 'none', label: '', description: '' },
          default_budget: 0.5,
          requires_human_input: true,
        }),
        'plug',
        'review',
      ),
    );
    assert.match(body, /- `input`: give none; this workflow takes no input\./);
    assert.match(body, /without it, \$0\.50, this workflow's default/);
    assert.match(body, /This workflow asks questions/);
  });
});
