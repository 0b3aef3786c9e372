import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { commitAll } from '../../src/testing/test-sandbox.js';
import type { RunOutcome } from '../../src/runtime/run-types.js';
import { checkTest, type RunRecord } from '../../src/testing/test-checks.js';
import type { Expect } from '../../src/testing/test-spec-schema.js';

const work = mkdtempSync(join(tmpdir(), 'raymond-checks-'));
after(() => rmSync(work, { recursive: true, force: true }));
writeFileSync(join(work, 'out.txt'), 'hello world');

function record(over: Partial<RunRecord> = {}, outcome: Partial<RunOutcome> = {}): RunRecord {
  return {
    outcome: {
      status: 'completed',
      totalCostUsd: 0.0123,
      results: { main: 'approved' },
      ...outcome,
    } as RunOutcome,
    problems: [],
    endings: new Map(),
    agents: ['main', 'main_w1'],
    paths: new Map([
      ['main', ['START', 'REVIEW', 'DONE']],
      ['main_w1', ['W']],
    ]),
    promptOf: (agent, i) => `${agent} prompt ${i} in ${work}`,
    work,
    ...over,
  };
}
const check = (expect: Expect, r = record()) =>
  checkTest(expect, r, (t) => t.split(work).join('<scratch>'));

describe('checkTest', () => {
  it('passes a run that does what the test expects (a run that completes, when the test says nothing)', () => {
    assert.equal(check({}), undefined);
    assert.equal(
      check({
        paths: { main: ['START.md', 'REVIEW', 'DONE'] },
        results: { main: { match: '^appr' } },
        files: { 'out.txt': { match: 'world$' }, 'no.txt': null },
        agents: 2,
        never: ['ESCALATE'],
        cost: { at_most: 0.02, exactly: 0.0123 },
        exit: 0,
      }),
      undefined,
    );
  });
  it("shows the step where an agent's path left the expected one, with the prompt that led there, scratch paths hidden", () => {
    assert.deepEqual(check({ paths: { main: ['START', 'FIX', 'DONE'] } }), {
      what: 'agent main, step 2 (after START)',
      expected: 'FIX',
      got: 'REVIEW',
      state: 'START',
      prompt: 'main prompt 0 in <scratch>',
    });
    assert.equal(check({ paths: { main: ['START', 'REVIEW'] } })?.expected, '(the agent ends)');
    const ended = record({ endings: new Map([['main', 'failed: wf/DONE.md: boom']]) });
    assert.equal(
      check({ paths: { main: ['START', 'REVIEW', 'DONE', 'MORE'] } }, ended)?.got,
      '(the agent ended, failed: wf/DONE.md: boom)',
    );
  });
  it('fails a step that took another kind of transition than its entry names; an entry without a kind (the older form) checks the state only', () => {
    const r = record({ kinds: new Map([['main', ['goto', 'goto', 'result']]]) });
    assert.equal(
      check({ paths: { main: ['START -goto->', 'REVIEW', 'DONE -result->'] } }, r),
      undefined,
    );
    assert.deepEqual(check({ paths: { main: ['START -join->', 'REVIEW', 'DONE'] } }, r), {
      what: 'agent main, step 1 (START): its transition',
      expected: 'join',
      got: 'goto',
      state: 'START',
    });
  });
  it('puts an agent gone elsewhere before the unscripted turn it caused, and an unscripted turn before an agent that merely stopped', () => {
    const problem = { what: 'no reply is scripted for DONE turn 1 (agent main)', prompt: 'p' };
    const r = record({ problems: [problem] });
    assert.equal(check({ paths: { main: ['START', 'FIX'] } }, r)?.got, 'REVIEW');
    assert.equal(
      check({ paths: { main: ['START', 'REVIEW', 'DONE', 'MORE'] } }, r)?.what,
      problem.what,
    );
  });
  it('checks never-reached states, agents, status, exit, results, files and cost, each with what was expected and what came', () => {
    assert.equal(
      check({ never: ['REVIEW.md'] })?.what,
      'agent main reached REVIEW, which the test says no agent reaches (step 2)',
    );
    assert.deepEqual(check({ agents: 3 }), {
      what: 'the number of agents',
      expected: '3',
      got: '2',
    });
    assert.deepEqual(check({}, record({}, { status: 'failed', error: 'boom' })), {
      what: "the run's status",
      expected: 'completed',
      got: 'failed (boom)',
    });
    assert.deepEqual(check({ exit: 2 }), { what: 'the exit code', expected: '2', got: '0' });
    assert.deepEqual(check({ results: { main_w1: 'x' } }), {
      what: 'the result of agent main_w1',
      expected: '"x"',
      got: '(no result)',
    });
    assert.deepEqual(check({ files: { 'out.txt': 'hello' } }), {
      what: 'file out.txt',
      expected: '"hello"',
      got: '"hello world"',
    });
    assert.deepEqual(check({ files: { 'out.txt': null } }), {
      what: 'file out.txt',
      expected: '(absent)',
      got: 'it exists',
    });
    assert.deepEqual(check({ cost: { at_most: 0.01 } }), {
      what: "the run's cost",
      expected: 'at most $0.01',
      got: '$0.0123',
    });
    assert.equal(
      check({}, { ...record({ failure: 'wf: no entry state' }), outcome: undefined })?.what,
      'the run failed to run: wf: no entry state',
    );
  });
  it('reads files on branches of the scratch repository', () => {
    commitAll(work);
    assert.equal(
      check({ branches: { main: { 'out.txt': 'hello world', 'no.txt': null } } }),
      undefined,
    );
    assert.deepEqual(check({ branches: { main: { 'out.txt': 'bye' } } }), {
      what: 'file out.txt on branch main',
      expected: '"bye"',
      got: '"hello world"',
    });
    assert.equal(check({ branches: { gone: { 'out.txt': null } } }), undefined);
  });
});
