import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLineSplitter, encodeMessage } from '../../src/executors/spawner-protocol.js';

test('the line splitter yields whole messages however the text is chunked', () => {
  const messages = [
    { type: 'chunk', id: 1, stream: 'stdout', text: 'a\nb "quoted" €' },
    { type: 'started', id: 2, pid: 42 },
    { type: 'kill', id: 2, signal: 'SIGTERM' },
  ] as const;
  const wire = messages.map(encodeMessage).join('');
  for (const size of [1, 2, 7, wire.length]) {
    const got: unknown[] = [];
    const split = createLineSplitter((line) => got.push(JSON.parse(line)));
    for (let i = 0; i < wire.length; i += size) split(wire.slice(i, i + size));
    assert.deepEqual(got, messages, `chunks of ${size}`);
  }
});

test('the line splitter holds an unfinished line until its newline arrives', () => {
  const got: string[] = [];
  const split = createLineSplitter((line) => got.push(line));
  split('{"a":1}\n{"b"');
  assert.deepEqual(got, ['{"a":1}']);
  split(':2}\n');
  assert.deepEqual(got, ['{"a":1}', '{"b":2}']);
});
