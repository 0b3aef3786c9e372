import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultTestFile, testFileText } from '../../src/testing/record-file.js';
import type { RecordedRun } from '../../src/testing/record.js';

const recorded = (folder: boolean): RecordedRun => ({
  spec: {
    input: 'go',
    replies: { START: [{ text: '<goto>END</goto>', tokens: { input: 10, output: 2 } }] },
    expect: { status: 'completed', exit: 0, paths: { main: ['START', 'END'] }, agents: 1 },
  },
  workflow: { path: folder ? '/p/wf' : '/p/wf.yaml', folder },
  startedAt: '2026-01-01T00:00:00.000Z',
});

describe('the recorded test file', () => {
  it("goes to a folder workflow's tests/ folder, and to stdout for a one-file workflow", () => {
    assert.equal(defaultTestFile(recorded(true), 'r1'), '/p/wf/tests/r1.test.yaml');
    assert.equal(defaultTestFile(recorded(false), 'r1'), undefined);
  });

  it('names its run, says workflow: only when its place does not imply it, and writes short lists on one line', () => {
    const home = testFileText(recorded(true), 'r1', '/p/wf/tests/r1.test.yaml', '/p');
    assert.equal(
      home,
      [
        '# Recorded by `raymond record r1` from the run started 2026-01-01T00:00:00.000Z.',
        '# Replay it with `raymond test` (free: a scripted model gives these replies).',
        '',
        'input: go',
        'replies:',
        '  START:',
        '    - text: <goto>END</goto>',
        '      tokens: { input: 10, output: 2 }',
        'expect:',
        '  status: completed',
        '  exit: 0',
        '  paths:',
        '    main: [ START, END ]',
        '  agents: 1',
        '',
      ].join('\n'),
    );
    assert.match(
      testFileText(recorded(true), 'r1', 'elsewhere/x.test.yaml', '/p'),
      /^workflow: \.\.\/wf$/m,
    );
    const out = testFileText(recorded(false), 'r1', undefined, '/p');
    assert.match(out, /^workflow: wf\.yaml$/m);
    assert.match(out, /`workflow:` is relative to this file/);
  });
});
