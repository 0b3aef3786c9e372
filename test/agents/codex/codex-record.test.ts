import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { codexRecordedTurns, RECORD_USAGE_LINE } from '../../../src/agents/codex/codex-record.js';
import { streamTurns } from '../../../src/testing/record-stream.js';

const line = (v: unknown) => JSON.stringify(v);
const CWD = '/work/repo';

/** A step's debug stream: two codex processes (a turn, and a reminder's second turn), each with its usage line. */
const STREAM = [
  line({ type: 'thread.started', thread_id: 't1' }),
  line({ type: 'item.completed', item: { type: 'error', message: 'Model metadata not found' } }),
  line({ type: 'turn.started' }),
  line({
    type: 'item.completed',
    item: {
      type: 'command_execution',
      command: `/bin/bash -lc 'cat ${CWD}/app.js; echo '\\''done'\\'''`,
      exit_code: 0,
      status: 'completed',
    },
  }),
  line({
    type: 'item.completed',
    item: { type: 'mcp_tool_call', server: 'gh', tool: 'list_issues', arguments: { repo: 'x' } },
  }),
  line({ type: 'item.completed', item: { type: 'agent_message', text: 'first' } }),
  line({ type: 'turn.completed', usage: { input_tokens: 5000, output_tokens: 80 } }),
  line({ type: RECORD_USAGE_LINE, usage: { input_tokens: 1200, output_tokens: 40 } }),
  'not json',
  line({ type: 'thread.started', thread_id: 't1' }),
  line({ type: 'item.completed', item: { type: 'agent_message', text: '<goto>NEXT</goto>' } }),
  line({ type: 'turn.completed', usage: { input_tokens: 9000, output_tokens: 100 } }),
  line({ type: RECORD_USAGE_LINE, usage: { input_tokens: 300, output_tokens: 20 } }),
  line({ type: 'thread.started', thread_id: 't1' }),
  line({ type: 'turn.failed', error: { message: 'stream disconnected' } }),
].join('\n');

describe("codex's recorded turns", () => {
  it("reads each turn's text, its commands unwrapped, its MCP calls and its own tokens", () => {
    assert.deepEqual(codexRecordedTurns(STREAM, CWD), [
      {
        text: 'first',
        tools: [{ bash: "cat app.js; echo 'done'" }, { tool: 'list_issues', input: { repo: 'x' } }],
        tokens: { input: 1200, output: 40 },
      },
      { text: '<goto>NEXT</goto>', tools: [], tokens: { input: 300, output: 20 } },
    ]);
  });

  it("is no other CLI's stream, and streamTurns hands a codex stream to it", () => {
    assert.equal(codexRecordedTurns(line({ type: 'result', result: 'x' }), CWD), undefined);
    assert.equal(streamTurns(STREAM, CWD).length, 2);
    assert.equal(streamTurns(line({ type: 'result', result: 'x', usage: {} }), CWD)[0]?.text, 'x');
  });
});
