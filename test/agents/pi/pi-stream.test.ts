import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  PiStreamReader,
  type PiProgress,
  type PiSummary,
} from '../../../src/agents/pi/pi-stream.js';

const line = (o: unknown) => `${JSON.stringify(o)}\n`;

const session = (id: string) =>
  line({ type: 'session', version: 3, id, timestamp: '2025-06-01T10:00:00.000Z', cwd: '/tmp/x' });

const usage = (total: number) => ({
  input: 1000,
  output: 100,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 1100,
  cost: { input: total * (2 / 3), output: total / 3, cacheRead: 0, cacheWrite: 0, total },
});

const assistant = (text: string, cost = 0.0045, extra: Record<string, unknown> = {}) => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
  usage: usage(cost),
  stopReason: 'stop',
  model: 'mock-model',
  ...extra,
});
const user = (text: string) => ({ role: 'user', content: [{ type: 'text', text }], timestamp: 1 });

const messageEnd = (message: unknown) => line({ type: 'message_end', message });
const turnEnd = (message: unknown) => line({ type: 'turn_end', message, toolResults: [] });
const toolStart = (id: string, name: string) =>
  line({ type: 'tool_execution_start', toolCallId: id, toolName: name, args: {} });
const agentEnd = (...messages: unknown[]) => line({ type: 'agent_end', messages });

/** Feeds `text` to a reader in pieces of `size` characters. */
function read(text: string, size = text.length): { s: PiSummary; progress: PiProgress[] } {
  const progress: PiProgress[] = [];
  const r = new PiStreamReader((p) => progress.push(p));
  for (let i = 0; i < text.length; i += size) r.write(text.slice(i, i + size));
  return { s: r.end(), progress };
}

const hello = assistant('hello <goto>B</goto>');
const oneTurn =
  session('01a2b3c4-0000-7000-8000-000000000001') +
  line({ type: 'agent_start' }) +
  messageEnd(user('Say hello')) +
  messageEnd(hello) +
  turnEnd(hello) +
  agentEnd(user('Say hello'), hello);

describe('PiStreamReader', () => {
  for (const size of [oneTurn.length, 1, 5, 37]) {
    it(`reads one turn written in chunks of ${size === oneTurn.length ? 'the whole text' : size}`, () => {
      const { s, progress } = read(oneTurn, size);
      assert.deepEqual(s, {
        sessionId: '01a2b3c4-0000-7000-8000-000000000001',
        resultText: 'hello <goto>B</goto>',
        stopReason: 'stop',
        errorMessage: null,
        costUsd: 0.0045,
        tokens: 1100,
        badLines: 0,
        denials: [],
        models: ['mock-model'],
      });
      assert.deepEqual(progress, [
        { kind: 'spend', costUsd: 0.0045 },
        { kind: 'text', text: 'hello <goto>B</goto>' },
      ]);
    });
  }

  it("tells the turn's cost so far at each paid message, for --budget-hard", () => {
    const second = assistant('more', 0.002);
    const { progress } = read(
      oneTurn.replace(agentEnd(user('Say hello'), hello), '') +
        messageEnd(second) +
        messageEnd(assistant('free', 0)),
    );
    assert.deepEqual(
      progress.filter((p) => p.kind === 'spend'),
      [
        { kind: 'spend', costUsd: 0.0045 },
        { kind: 'spend', costUsd: 0.0065 },
      ],
    );
  });

  it('counts neither user messages nor turn_end toward cost', () => {
    const withCost = { ...user('hi'), usage: usage(9) };
    const { s } = read(messageEnd(withCost) + messageEnd(hello) + turnEnd(hello) + turnEnd(hello));
    assert.equal(s.costUsd, 0.0045);
  });

  it('sums the cost of several assistant messages', () => {
    const a = assistant('', 0.001, {
      content: [{ type: 'toolCall', id: 't1', name: 'bash', arguments: {} }],
      stopReason: 'toolUse',
    });
    const b = assistant('done', 0.002);
    const c = assistant('really done', 0.0045);
    const { s, progress } = read(
      messageEnd(a) + toolStart('t1', 'bash') + messageEnd(b) + messageEnd(c) + agentEnd(a, b, c),
    );
    assert.ok(Math.abs(s.costUsd - 0.0075) < 1e-12, String(s.costUsd));
    assert.equal(s.resultText, 'really done');
    assert.deepEqual(progress, [
      { kind: 'spend', costUsd: 0.001 },
      { kind: 'tool', name: 'bash' },
      { kind: 'spend', costUsd: 0.003 },
      { kind: 'text', text: 'done' },
      { kind: 'spend', costUsd: 0.0075 },
      { kind: 'text', text: 'really done' },
    ]);
  });

  it('reports each tool as it starts', () => {
    const { progress } = read(
      toolStart('t1', 'bash') +
        toolStart('t2', 'read') +
        line({
          type: 'tool_execution_end',
          toolCallId: 't1',
          toolName: 'bash',
          result: {},
          isError: false,
        }),
    );
    assert.deepEqual(progress, [
      { kind: 'tool', name: 'bash' },
      { kind: 'tool', name: 'read' },
    ]);
  });

  it('takes the text of the last assistant message of agent_end, its text parts joined', () => {
    const first = assistant('first');
    const last = {
      ...assistant(''),
      content: [
        { type: 'thinking', thinking: 'hmm' },
        { type: 'text', text: 'part one, ' },
        { type: 'toolCall', id: 'x', name: 'ls', arguments: {} },
        { type: 'text', text: 'part two' },
      ],
    };
    const { s } = read(
      agentEnd(
        user('q'),
        first,
        { role: 'toolResult', toolCallId: 'x', content: [{ type: 'text', text: 'tool out' }] },
        last,
        user('late'),
      ),
    );
    assert.equal(s.resultText, 'part one, part two');
  });

  it('lets a second agent_end (pi retrying on its own) replace the first', () => {
    const failed = assistant('', 0, {
      content: [],
      stopReason: 'error',
      errorMessage: '429 rate limited',
    });
    const ok = assistant('second try <goto>B</goto>');
    const { s } = read(agentEnd(user('q'), failed) + agentEnd(user('q'), ok));
    assert.equal(s.resultText, 'second try <goto>B</goto>');
    assert.equal(s.stopReason, 'stop');
    assert.equal(s.errorMessage, null);
  });

  it("reports pi's retries of a refused rate or an overload, with its delay; other retries are not limits", () => {
    const retry = (errorMessage: string, delayMs: number) =>
      JSON.stringify({
        type: 'auto_retry_start',
        attempt: 1,
        maxAttempts: 3,
        delayMs,
        errorMessage,
      }) + '\n';
    const { progress } = read(
      retry('429 rate limited', 2000) +
        retry('529 {"type":"overloaded_error"}', 4000) +
        retry('fetch failed', 1000),
    );
    assert.deepEqual(
      progress.filter((p) => p.kind === 'limited'),
      [
        { kind: 'limited', status: 429, delayMs: 2000 },
        { kind: 'limited', status: 529, delayMs: 4000 },
      ],
    );
  });

  it('gives the stopReason and errorMessage of a failed last message', () => {
    const failed = assistant('', 0, {
      content: [],
      stopReason: 'error',
      errorMessage: '500 Internal Server Error',
    });
    const { s } = read(session('s1') + messageEnd(failed) + agentEnd(user('q'), failed));
    assert.equal(s.stopReason, 'error');
    assert.equal(s.errorMessage, '500 Internal Server Error');
    assert.equal(s.resultText, '');
    assert.equal(s.costUsd, 0);
  });

  it('gives null results when agent_end has no assistant message, or never comes', () => {
    assert.deepEqual(read(agentEnd(user('q'))).s.resultText, null);
    const { s } = read(session('s1') + messageEnd(hello));
    assert.equal(s.resultText, null);
    assert.equal(s.stopReason, null);
    assert.equal(s.costUsd, 0.0045);
  });

  it('takes the session id from the first session event only', () => {
    const { s } = read(session('first-id') + messageEnd(hello) + session('second-id'), 3);
    assert.equal(s.sessionId, 'first-id');
  });

  it('counts and reports a line that is not JSON, and reads on', () => {
    const { s, progress } = read(
      `not json at all\n${session('s1')}{"type":\n${messageEnd(hello)}`,
      4,
    );
    assert.equal(s.badLines, 2);
    assert.equal(s.sessionId, 's1');
    assert.equal(s.costUsd, 0.0045);
    assert.deepEqual(progress, [
      { kind: 'bad-line', text: 'not json at all' },
      { kind: 'bad-line', text: '{"type":' },
      { kind: 'spend', costUsd: 0.0045 },
      { kind: 'text', text: 'hello <goto>B</goto>' },
    ]);
  });

  it('reads a last line without newline, and skips blank lines', () => {
    const { s } = read(`\n\n  \n${session('s1')}\r\n${agentEnd(hello).trimEnd()}`, 6);
    assert.equal(s.badLines, 0);
    assert.equal(s.sessionId, 's1');
    assert.equal(s.resultText, 'hello <goto>B</goto>');
  });

  it('ignores a cost that is not a finite number', () => {
    const odd = { ...hello, usage: { cost: { total: 'free' } } };
    const none = { ...hello, usage: undefined };
    assert.equal(read(messageEnd(odd) + messageEnd(none) + messageEnd(hello)).s.costUsd, 0.0045);
  });
});

describe('PiStreamReader calls outside the tools', () => {
  it('reports a failed call to a tool the state does not have as denied, with its arguments', () => {
    const denied: unknown[] = [];
    const r = new PiStreamReader(
      (p) => p.kind === 'denied' && denied.push(p.denial),
      new Set(['read']),
    );
    const l = (o: unknown) => `${JSON.stringify(o)}\n`;
    r.write(
      l({
        type: 'tool_execution_start',
        toolCallId: 't1',
        toolName: 'bash',
        args: { command: 'rm -rf x' },
      }),
    );
    r.write(
      l({
        type: 'tool_execution_end',
        toolCallId: 't1',
        toolName: 'bash',
        isError: true,
        result: { content: [{ type: 'text', text: 'Tool bash not found' }] },
      }),
    );
    r.write(
      l({
        type: 'tool_execution_start',
        toolCallId: 't2',
        toolName: 'read',
        args: { path: '/nope' },
      }),
    );
    r.write(l({ type: 'tool_execution_end', toolCallId: 't2', toolName: 'read', isError: true }));
    assert.deepEqual(r.end().denials, [{ tool: 'bash', input: { command: 'rm -rf x' } }]);
    assert.deepEqual(denied, [{ tool: 'bash', input: { command: 'rm -rf x' } }]);
  });
});
