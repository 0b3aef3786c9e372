import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { streamTurns } from '../../src/testing/record-stream.js';

const lines = (...objects: unknown[]) => objects.map((o) => JSON.stringify(o)).join('\n') + '\n';
const assistant = (content: unknown[], parent: string | null = null) => ({
  type: 'assistant',
  message: { role: 'assistant', content },
  parent_tool_use_id: parent,
});
const result = (text: string, input: number, output: number, cache = 0) => ({
  type: 'result',
  subtype: 'success',
  result: text,
  usage: { input_tokens: input, output_tokens: output, cache_read_input_tokens: cache },
});

describe("a Claude Code step's stream as turns", () => {
  it('each result line ends a turn with its text, the tool calls before it and its tokens (cache reads counted as input)', () => {
    const stream = lines(
      { type: 'system', subtype: 'init', cwd: '/w' },
      assistant([
        {
          type: 'tool_use',
          id: 't1',
          name: 'Bash',
          input: { command: 'make', description: 'build' },
        },
      ]),
      // The same block again (stream-json repeats a message per block): counted once.
      assistant([{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'make' } }]),
      assistant([{ type: 'tool_use', id: 't2', name: 'Read', input: { file_path: '/w/a.txt' } }]),
      assistant([
        {
          type: 'tool_use',
          id: 't3',
          name: 'Edit',
          input: { file_path: '/w/a.txt', old_string: 'x', new_string: 'y' },
        },
      ]),
      assistant([
        {
          type: 'tool_use',
          id: 't4',
          name: 'Write',
          input: { file_path: '/elsewhere/b.txt', content: 'b\n' },
        },
      ]),
      assistant([{ type: 'tool_use', id: 't5', name: 'Grep', input: { pattern: 'TODO' } }]),
      // A sub-agent's own calls are not this turn's.
      assistant([{ type: 'tool_use', id: 's1', name: 'Bash', input: { command: 'inner' } }], 't5'),
      assistant([{ type: 'text', text: 'done <goto>NEXT</goto>' }]),
      result('done <goto>NEXT</goto>', 100, 20, 900),
      // A failed turn (an API error) is not replayed.
      { type: 'result', subtype: 'success', is_error: true, result: 'API Error: 529', usage: {} },
      // A reminder: a second turn of the same step.
      assistant([{ type: 'text', text: '<result>ok</result>' }]),
      result('<result>ok</result>', 5, 1),
      // A turn cut before its result line (killed) is left out.
      assistant([{ type: 'tool_use', id: 't9', name: 'Bash', input: { command: 'late' } }]),
    );
    assert.deepEqual(streamTurns(stream, '/w'), [
      {
        text: 'done <goto>NEXT</goto>',
        tools: [
          { bash: 'make' },
          { edit: { path: 'a.txt', old: 'x', new: 'y' } },
          { write: { path: '/elsewhere/b.txt', content: 'b\n' } },
          { tool: 'Grep', input: { pattern: 'TODO' } },
        ],
        tokens: { input: 1000, output: 20 },
      },
      { text: '<result>ok</result>', tools: [], tokens: { input: 5, output: 1 } },
    ]);
  });

  it('calls a test file cannot write in short are kept whole: Bash with a timeout, an Edit of every match, a lone Read', () => {
    const stream = lines(
      assistant([
        { type: 'tool_use', id: 'a', name: 'Bash', input: { command: 'sleep 1', timeout: 5000 } },
      ]),
      assistant([
        {
          type: 'tool_use',
          id: 'b',
          name: 'Edit',
          input: { file_path: 'f', old_string: 'a', new_string: 'b', replace_all: true },
        },
      ]),
      assistant([{ type: 'tool_use', id: 'c', name: 'Read', input: { file_path: '/w/f' } }]),
      'not json',
      result('', 0, 0),
    );
    assert.deepEqual(streamTurns(stream, '/w')[0]!.tools, [
      { tool: 'Bash', input: { command: 'sleep 1', timeout: 5000 } },
      {
        tool: 'Edit',
        input: { file_path: 'f', old_string: 'a', new_string: 'b', replace_all: true },
      },
      { tool: 'Read', input: { file_path: '/w/f' } },
    ]);
  });
});

describe("a pi step's stream as turns", () => {
  const msg = (text: string, input: number, output: number) => ({
    role: 'assistant',
    content: [{ type: 'text', text }],
    usage: { input, output, cacheRead: 10, cacheWrite: 0, cost: { total: 0.001 } },
  });
  it("a turn is one pi process: its tool calls, its last agent_end's text, its messages' tokens", () => {
    const stream = lines(
      { type: 'session', id: 's1' },
      { type: 'tool_execution_start', toolCallId: 'c1', toolName: 'bash', args: { command: 'ls' } },
      { type: 'message_end', message: msg('', 100, 10) },
      {
        type: 'tool_execution_start',
        toolCallId: 'c2',
        toolName: 'write',
        args: { path: '/w/n.txt', content: 'n' },
      },
      {
        type: 'tool_execution_start',
        toolCallId: 'c3',
        toolName: 'edit',
        args: { path: 'n.txt', edits: [{ oldText: 'n', newText: 'm' }] },
      },
      {
        type: 'tool_execution_start',
        toolCallId: 'c4',
        toolName: 'edit',
        args: {
          path: 'n.txt',
          edits: [
            { oldText: 'a', newText: 'b' },
            { oldText: 'c', newText: 'd' },
          ],
        },
      },
      { type: 'message_end', message: { role: 'user', content: [] } },
      { type: 'message_end', message: msg('<goto>B</goto>', 200, 20) },
      { type: 'agent_end', messages: [msg('first try', 0, 0)] },
      {
        type: 'agent_end',
        messages: [{ role: 'user', content: [] }, msg('<goto>B</goto>', 200, 20)],
      },
      { type: 'session', id: 's1' },
      { type: 'message_end', message: msg('<result>r</result>', 1, 1) },
      { type: 'agent_end', messages: [msg('<result>r</result>', 1, 1)] },
      // pi killed mid-turn: no agent_end, no turn.
      { type: 'session', id: 's1' },
    );
    assert.deepEqual(streamTurns(stream, '/w'), [
      {
        text: '<goto>B</goto>',
        tools: [
          { bash: 'ls' },
          { write: { path: 'n.txt', content: 'n' } },
          { edit: { path: 'n.txt', old: 'n', new: 'm' } },
          {
            tool: 'edit',
            input: {
              path: 'n.txt',
              edits: [
                { oldText: 'a', newText: 'b' },
                { oldText: 'c', newText: 'd' },
              ],
            },
          },
        ],
        tokens: { input: 320, output: 30 },
      },
      { text: '<result>r</result>', tools: [], tokens: { input: 11, output: 1 } },
    ]);
  });
});
