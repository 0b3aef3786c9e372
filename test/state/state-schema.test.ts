import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Static } from '@sinclair/typebox';
import type { WorkflowState } from '../../machines/types.js';
import { journalRecord, STATE_FILE, stateFileProblem } from '../../src/state/state-schema.js';

const good = {
  version: 1,
  workflow_id: 'r1',
  status: 'failed',
  scope: { kind: 'dir', path: '/w', entry: 'START.sh' },
  started_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  options: {
    timeout_seconds: 600,
    max_parallel: 4,
    budget_usd: 10,
    model: null,
    effort: null,
    dangerously_skip_permissions: false,
  },
  total_cost_usd: 0,
  fork_counters: {},
  session_costs: {},
  agents: [
    {
      id: 'main',
      state: 'START.sh',
      session: null,
      branchFrom: null,
      stack: [{ state: 'END.sh', session: null, workflow: { scope: null, cwd: '/w', depth: 0 } }],
      cwd: '/w',
      attributes: {},
      input: null,
      status: 'failed',
    },
  ],
  results: {},
};

describe('state file schema', () => {
  it('accepts a state file as Raymond writes it', () => {
    assert.equal(stateFileProblem(good), undefined);
  });

  it('keeps the cost gate of an ask, its fork and the gate options, and refuses a gate without its numbers', () => {
    const gate = {
      kind: 'fork',
      where: 'MAIN.md',
      forecast_usd: 1.2,
      spent_usd: 0.01,
      amount_usd: 0.5,
      workers: 1,
      decision: { kind: 'fork', next: 'END.md', workers: [{ id: 'main_w1', target: 'W.md' }] },
      fresh: ['a', 'b'],
    };
    const ask = { id: 'ask_main_1', prompt: 'Cost gate', created_at: 'x', next: 'END.md', gate };
    const agent = { ...good.agents[0]!, status: 'active', ask };
    const options = { ...good.options, confirm_over_usd: 0.5, max_agents: 10 };
    assert.equal(stateFileProblem({ ...good, options, agents: [agent] }), undefined);
    const bad = { ...agent, ask: { ...ask, gate: { ...gate, amount_usd: 'lots' } } };
    assert.match(stateFileProblem({ ...good, agents: [bad] })!, /^agents\[0\]\.ask/);
  });

  it('names the first field of the wrong type', () => {
    const agent = good.agents[0]!;
    const cases: Array<[unknown, string]> = [
      [null, 'the state must be an object'],
      [{ ...good, total_cost_usd: 'abc' }, 'total_cost_usd is "abc"; it must be a number'],
      [{ ...good, total_cost_usd: undefined }, 'total_cost_usd is missing; it must be a number'],
      [{ ...good, results: null }, 'results is null; it must be an object of strings'],
      [{ ...good, results: { main: 5 } }, 'results is {"main":5}; it must be an object of strings'],
      [
        { ...good, status: 'weird' },
        'status is "weird"; it must be one of running, paused, completed, failed, budget_exceeded, asking',
      ],
      [
        { ...good, scope: { ...good.scope, kind: 'url' } },
        'scope.kind is "url"; it must be one of file, dir, zip, yaml',
      ],
      [
        { ...good, options: { ...good.options, model: 3 } },
        'options.model is 3; it must be a string or null',
      ],
      [{ ...good, agents: {} }, 'agents must be a list'],
      [
        { ...good, agents: [{ ...agent, status: 'zombie' }] },
        'agents[0].status is "zombie"; it must be one of active, terminated, failed, paused',
      ],
      [
        { ...good, agents: [{ ...agent, stack: null }] },
        'agents[0].stack is null; it must be a list of frames',
      ],
      [
        {
          ...good,
          agents: [{ ...agent, stack: [{ state: 'A.sh', session: null, workflow: 'x' }] }],
        },
        'agents[0].stack[0].workflow is "x"; it must be a caller scope ({scope, cwd, depth})',
      ],
      [
        { ...good, agents: [{ ...agent, attributes: { a: 1 } }] },
        'agents[0].attributes is {"a":1}; it must be an object of strings',
      ],
    ];
    for (const [state, problem] of cases) assert.equal(stateFileProblem(state), problem);
  });
});

describe('state file schema: <join> fields', () => {
  it('accepts a parent waiting on a join and its workers, and refuses their fields of the wrong type', () => {
    const agent = good.agents[0]!;
    const joining = {
      ...good,
      agents: [
        { ...agent, status: 'active', joining: true, cost_usd: 0.5 },
        { ...agent, id: 'main_w1', status: 'failed', parent: 'main', joined: true, stack: [] },
      ],
    };
    assert.equal(stateFileProblem(joining), undefined);
    assert.match(
      stateFileProblem({ ...good, agents: [{ ...agent, joining: 'yes' }] })!,
      /agents\[0\]\.joining is "yes"; it must be true/,
    );
    assert.match(
      stateFileProblem({ ...good, agents: [{ ...agent, parent: 7 }] })!,
      /agents\[0\]\.parent is 7; it must be a string/,
    );
  });
});

describe('state file schema: the type', () => {
  it('is the type the runtime writes: a WorkflowState fits the schema', () => {
    // Fails to compile (npm run typecheck) when WorkflowState gains a field the schema does not allow.
    const fits = (s: WorkflowState): Static<typeof STATE_FILE> => s;
    assert.equal(typeof fits, 'function');
  });

  it('refuses a journal line of another shape', () => {
    assert.equal(
      journalRecord.check({
        seq: 1,
        meta: { status: 'running', total_cost_usd: 0, updated_at: 'x', options: {} },
      }),
      true,
    );
    assert.equal(
      journalRecord.problem({ seq: 1.5, meta: {} }, 'the line'),
      'seq is 1.5; it must be a whole number',
    );
    assert.equal(
      journalRecord.problem(
        { seq: 1, meta: { status: 'running', total_cost_usd: 0, updated_at: 'x', options: [] } },
        'the line',
      ),
      'meta.options must be an object',
    );
  });
});
