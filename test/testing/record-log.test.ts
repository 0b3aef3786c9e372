import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTransitions, streamFiles } from '../../src/testing/record-log.js';

const T = '2026-01-01T00:00:00.000Z';

describe("a run's transitions.log, as raymond record reads it", () => {
  it('steps per agent in order, failures as steps, answers with the state that asked, the input', () => {
    const log = [
      `${T} run input: "fix \\"it\\"\\nplease"`,
      `${T} [main] START.md -> ASK.md (goto) cost=$0.010000 total=$0.010000 session=s depth=0`,
      `${T} [main] ASK.md -> BUILD.md (ask) cost=$0.000000 total=$0.010000 session=s depth=0`,
      `${T} [main] ask ask_main_1 answered: "yes"`,
      `${T} [main] BUILD.md -> main_w1 (fork) cost=$0.000000 total=$0.010000 session=- depth=0`,
      `${T} [main_w1] W_1.sh failed: wf/W_1.sh: exited with code 3`,
      `${T} [main_w1] ask a9 expired`,
      `${T} [main] BUILD.md -> (terminated) (result) cost=$0.000000 total=$0.010000 session=- depth=0`,
      `${T} [main] START.md denied: Bash(rm -rf /) input={}`,
      'garbage',
      '',
    ].join('\n');
    assert.deepEqual(parseTransitions(log), {
      input: 'fix "it"\nplease',
      steps: [
        { agent: 'main', state: 'START.md', kind: 'goto' },
        { agent: 'main', state: 'ASK.md', kind: 'ask' },
        { agent: 'main', state: 'BUILD.md', kind: 'fork' },
        { agent: 'main_w1', state: 'W_1.sh', kind: 'failed' },
        { agent: 'main', state: 'BUILD.md', kind: 'result' },
      ],
      answers: [{ agent: 'main', state: 'ASK.md', text: 'yes' }],
    });
  });

  it('a log without input or answers (an older Raymond) gives none', () => {
    assert.deepEqual(parseTransitions(''), { steps: [], answers: [] });
  });
});

describe('stream file names', () => {
  it('split at the longest known agent whose rest is a known state, in step order; others are left out', () => {
    const names = [
      'main_w_1_SUM_UP_004.jsonl',
      'main_w_1_DO_IT_002.jsonl',
      'main_START_001.jsonl',
      'main_w_2_DO_IT_1000.jsonl',
      'main_OTHER_003.jsonl',
      'transitions.log',
      'scripts.jsonl',
    ];
    const files = streamFiles(
      names,
      ['main', 'main_w_1', 'main_w_2'],
      new Set(['START', 'DO_IT', 'SUM_UP']),
    );
    assert.deepEqual(
      files.map((f) => [f.agent, f.stem, f.step]),
      [
        ['main', 'START', 1],
        ['main_w_1', 'DO_IT', 2],
        ['main_w_1', 'SUM_UP', 4],
        ['main_w_2', 'DO_IT', 1000],
      ],
    );
  });
});
