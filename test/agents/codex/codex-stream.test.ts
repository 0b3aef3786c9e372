import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CodexStreamReader,
  type CodexProgress,
  type CodexSummary,
} from '../../../src/agents/codex/codex-stream.js';

// Lines as codex 0.171 printed them against the scripted server (ids kept, usage as sent).
const THREAD = '{"type":"thread.started","thread_id":"01a21e65-94ca-7f03-afbf-0f6302f7b261"}';
const METADATA =
  '{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Model metadata for `mock-model` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."}}';
const TURN_STARTED = '{"type":"turn.started"}';
const COMMAND_STARTED =
  '{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc \'echo hi\'","aggregated_output":"","exit_code":null,"status":"in_progress"}}';
const COMMAND_DONE =
  '{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc \'echo hi\'","aggregated_output":"hi\\n","exit_code":0,"status":"completed"}}';
const MESSAGE = (text: string, id = 'item_2') =>
  JSON.stringify({ type: 'item.completed', item: { id, type: 'agent_message', text } });
const COMPLETED =
  '{"type":"turn.completed","usage":{"input_tokens":2000,"cached_input_tokens":200,"cache_write_input_tokens":0,"output_tokens":100,"reasoning_output_tokens":0}}';

const lines = (...l: string[]) => l.map((x) => `${x}\n`).join('');

function read(
  text: string,
  size = text.length,
  stderr = '',
): { s: CodexSummary; progress: CodexProgress[] } {
  const progress: CodexProgress[] = [];
  const r = new CodexStreamReader((p) => progress.push(p));
  for (let i = 0; i < text.length; i += size) r.write(text.slice(i, i + size));
  for (let i = 0; i < stderr.length; i += 7) r.writeStderr(stderr.slice(i, i + 7));
  return { s: r.end(), progress };
}

const oneTurn = lines(
  THREAD,
  METADATA,
  TURN_STARTED,
  COMMAND_STARTED,
  COMMAND_DONE,
  MESSAGE('looking'),
  MESSAGE('  done <goto>B</goto>\n', 'item_3'),
  COMPLETED,
);

describe('CodexStreamReader', () => {
  for (const size of [oneTurn.length, 1, 5, 61])
    it(`reads a turn written in chunks of ${size === oneTurn.length ? 'the whole text' : size}`, () => {
      const { s, progress } = read(oneTurn, size);
      assert.deepEqual(s, {
        threadId: '01a21e65-94ca-7f03-afbf-0f6302f7b261',
        resultText: '  done <goto>B</goto>\n',
        usage: {
          input_tokens: 2000,
          cached_input_tokens: 200,
          output_tokens: 100,
          reasoning_output_tokens: 0,
        },
        completed: true,
        failure: null,
        lastError: null,
        fatal: null,
        badLines: 0,
        denials: [],
      });
      // Each completed item is told (the executor reads the rollout's usage then, for --budget-hard).
      const item = { kind: 'item', threadId: '01a21e65-94ca-7f03-afbf-0f6302f7b261' };
      assert.deepEqual(progress, [
        item,
        {
          kind: 'warning',
          text: 'Model metadata for `mock-model` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.',
        },
        item,
        item,
        { kind: 'text', text: 'looking' },
        item,
        { kind: 'text', text: 'done <goto>B</goto>' },
      ]);
    });

  it('reads the last line without its newline', () => {
    assert.equal(read(`${THREAD}\n${MESSAGE('x')}\n${COMPLETED}`).s.completed, true);
  });

  it('reports a line that is not JSON and goes on', () => {
    const { s, progress } = read(lines(THREAD, 'WARNING: not json', MESSAGE('ok'), COMPLETED));
    assert.equal(s.badLines, 1);
    assert.equal(s.resultText, 'ok');
    assert.deepEqual(progress[0], { kind: 'bad-line', text: 'WARNING: not json' });
  });

  it('keeps the message of a failed turn, and the retries before it as warnings', () => {
    const retry =
      '{"type":"error","message":"Reconnecting... 1/5 (stream disconnected before completion: stream closed before response.completed)"}';
    const last =
      '{"type":"error","message":"stream disconnected before completion: stream closed before response.completed"}';
    const failed =
      '{"type":"turn.failed","error":{"message":"stream disconnected before completion: stream closed before response.completed"}}';
    const { s, progress } = read(
      lines(THREAD, TURN_STARTED, MESSAGE('x', 'item_1'), retry, last, failed),
    );
    assert.equal(s.completed, false);
    assert.equal(
      s.failure,
      'stream disconnected before completion: stream closed before response.completed',
    );
    assert.equal(s.lastError, s.failure);
    assert.equal(s.fatal, null);
    assert.equal(progress.filter((p) => p.kind === 'warning').length, 2);
  });

  it('says at its first error that a refused key cannot succeed (codex would retry it five times)', () => {
    const retry =
      '{"type":"error","message":"Reconnecting... 1/5 (unexpected status 401 Unauthorized: Incorrect API key provided, url: http://127.0.0.1:39473/v1/responses)"}';
    const { s, progress } = read(lines(THREAD, TURN_STARTED, retry));
    assert.deepEqual(s.fatal, {
      kind: 'auth',
      message:
        'unexpected status 401 Unauthorized: Incorrect API key provided, url: http://127.0.0.1:39473/v1/responses',
    });
    assert.deepEqual(progress.at(-1), { kind: 'fatal' });
  });

  it('says an unknown model cannot succeed', () => {
    const failed =
      '{"type":"turn.failed","error":{"message":"The model `gpt-x` does not exist or you do not have access to it."}}';
    assert.equal(read(lines(THREAD, failed)).s.fatal?.kind, 'model');
  });

  it('reports declined commands and edits, and MCP calls that wanted an approval, as denials', () => {
    const declined =
      '{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc \'rm -rf /\'","aggregated_output":"","exit_code":null,"status":"declined"}}';
    const patch =
      '{"type":"item.completed","item":{"id":"item_2","type":"file_change","changes":[{"path":"/etc/passwd","kind":"update"}],"status":"declined"}}';
    const mcp =
      '{"type":"item.completed","item":{"id":"item_3","type":"mcp_tool_call","server":"demo","tool":"ping","arguments":{"n":1},"result":null,"error":{"message":"MCP tool call requires approval, but approval policy is never"},"status":"failed"}}';
    const failedCommand =
      '{"type":"item.completed","item":{"id":"item_4","type":"command_execution","command":"false","aggregated_output":"","exit_code":1,"status":"failed"}}';
    const { s, progress } = read(lines(THREAD, declined, patch, mcp, failedCommand, COMPLETED));
    assert.deepEqual(s.denials, [
      { tool: 'shell', input: { command: "/bin/bash -lc 'rm -rf /'" } },
      { tool: 'apply_patch', input: { path: '/etc/passwd' } },
      { tool: 'mcp__demo__ping', input: { n: 1 } },
    ]);
    assert.equal(progress.filter((p) => p.kind === 'denied').length, 3);
  });

  it("reports a command refused for asking to leave the sandbox, which only codex's stderr tells", () => {
    const stderr =
      'WARNING: proceeding, even though we could not create PATH aliases\n2026-11-27T19:09:03.833167Z ERROR codex_core::tools::router: error=approval policy is Never; reject command — you cannot ask for escalated permissions if the approval policy is Never\n';
    const { s } = read(lines(THREAD, COMPLETED), undefined, stderr);
    assert.deepEqual(s.denials, [
      { tool: 'shell', input: { description: 'a command that asked to run outside the sandbox' } },
    ]);
  });

  it('takes the first thread.started only', () => {
    const other = '{"type":"thread.started","thread_id":"other"}';
    assert.equal(
      read(lines(THREAD, other, COMPLETED)).s.threadId,
      '01a21e65-94ca-7f03-afbf-0f6302f7b261',
    );
  });
});
