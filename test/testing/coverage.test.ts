import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { join } from 'node:path';
import type { RunEvent } from '../../machines/run-events.js';
import type { ResolvedDecisionData } from '../../machines/decision.js';
import { loadWorkflowGraph } from '../../src/analysis/workflow-graph.js';
import { coverage } from '../../src/testing/coverage.js';
import { coverageJson, formatCoverage } from '../../src/testing/coverage-report.js';
import type { RunControl } from '../../src/runtime/run-types.js';
import { startWorkflow } from '../../src/runtime/start-run.js';
import { ROOT, Sandbox } from '../helpers/cli.js';
import { plainSettings, runProject } from '../helpers/run-world.js';
import { fakeExecutor } from '../helpers/step-deps.js';

const box = new Sandbox();
after(() => box.remove());

const started = (agentId: string, state: string, scope?: string): RunEvent =>
  scope === undefined
    ? { type: 'step.started', agentId, state }
    : { type: 'step.started', agentId, state, scope };

/** A step.done; `decision` as the step resolved it (only the fields coverage reads matter). */
function done(
  agentId: string,
  from: string,
  decision: Record<string, unknown>,
  to: string | null,
  depth = 0,
): RunEvent {
  return {
    type: 'step.done',
    agentId,
    from,
    decision: decision as unknown as ResolvedDecisionData,
    to,
    session: null,
    depth,
    costUsd: 0,
    totalCostUsd: 0,
    workers: [],
  };
}

/** A workflow that forks, joins, then asks with a timeout. */
const JOIN_ASK = {
  'START.md': 'Fork: <fork next="GATHER.md" item="a">WORK.md</fork> then <join>GATHER.md</join>',
  'WORK.md': 'Reply <result>done</result>',
  'GATHER.md': 'Ask: <ask next="DONE.md" timeout="1h" timeout_next="LATE.md">ok?</ask>',
  'DONE.md': '<result>ok</result>',
  'LATE.md': '<result>late</result>',
};

const goto = (target: string) => ({ kind: 'goto', target });
const result = { kind: 'result', payload: 'ok' };

describe('coverage', () => {
  it('names the edge of review-loop that no run took, and the state that never ran', async () => {
    const graph = await loadWorkflowGraph(join(ROOT, 'workflows/examples/review-loop'));
    const run: RunEvent[] = [
      started('main', 'START.md'),
      done('main', 'START.md', goto('REVIEW.md'), 'REVIEW.md'),
      started('main', 'REVIEW.md'),
      done('main', 'REVIEW.md', result, null),
    ];
    const c = coverage(graph, [run]);
    assert.deepEqual(c.states, { taken: ['REVIEW.md', 'START.md'], never: ['REVISE.md'] });
    assert.deepEqual(c.edges.never, [
      { from: 'REVIEW.md', kind: 'goto', to: 'REVISE.md' },
      { from: 'REVISE.md', kind: 'goto', to: 'REVIEW.md' },
    ]);
    assert.equal(
      formatCoverage(c),
      [
        'coverage review-loop: 2/3 states, 2/4 edges',
        '  ran: REVIEW, START',
        '  taken: REVIEW -result-> (result)',
        '  taken: START -goto-> REVIEW',
        '  never ran: REVISE',
        '  never taken: REVIEW -goto-> REVISE',
        '  never taken: REVISE -goto-> REVIEW',
      ].join('\n'),
    );
    assert.deepEqual(coverageJson(c).edges.taken, [
      { from: 'REVIEW', kind: 'result', to: null },
      { from: 'START', kind: 'goto', to: 'REVIEW' },
    ]);
  });

  it('adds up several runs: together they take every edge', async () => {
    const graph = await loadWorkflowGraph(join(ROOT, 'workflows/examples/review-loop'));
    const first: RunEvent[] = [
      started('main', 'START.md'),
      done('main', 'START.md', goto('REVIEW.md'), 'REVIEW.md'),
      started('main', 'REVIEW.md'),
      done('main', 'REVIEW.md', result, null),
    ];
    const second: RunEvent[] = [
      started('main', 'REVIEW.md'),
      done('main', 'REVIEW.md', goto('REVISE.md'), 'REVISE.md'),
      started('main', 'REVISE.md'),
      done('main', 'REVISE.md', goto('REVIEW.md'), 'REVIEW.md'),
    ];
    const c = coverage(graph, [first, second]);
    assert.deepEqual(c.states.never, []);
    assert.deepEqual(c.edges.never, []);
    assert.equal(
      formatCoverage(c),
      [
        'coverage review-loop: 3/3 states, 4/4 edges',
        '  ran: REVIEW, REVISE, START',
        '  taken: REVIEW -goto-> REVISE',
        '  taken: REVIEW -result-> (result)',
        '  taken: REVISE -goto-> REVIEW',
        '  taken: START -goto-> REVIEW',
      ].join('\n'),
    );
  });

  it("follows the tour's call, function and fork: returns count when the callee's result comes back", async () => {
    const graph = await loadWorkflowGraph(join(ROOT, 'workflows/examples/tour'));
    const worker = (id: string) => ({ id, target: 'WORKER.sh', attributes: {} });
    const run: RunEvent[] = [
      started('main', '1_START.sh'),
      done(
        'main',
        '1_START.sh',
        { kind: 'call', target: 'COUNTDOWN.sh', returnTo: 'AFTER_CALL.sh' },
        'COUNTDOWN.sh',
        1,
      ),
      started('main', 'COUNTDOWN.sh'),
      done('main', 'COUNTDOWN.sh', { kind: 'reset', target: 'COUNTDOWN.sh' }, 'COUNTDOWN.sh', 1),
      started('main', 'COUNTDOWN.sh'),
      done('main', 'COUNTDOWN.sh', result, 'AFTER_CALL.sh', 0),
      started('main', 'AFTER_CALL.sh'),
      done(
        'main',
        'AFTER_CALL.sh',
        { kind: 'function', target: 'SHOUT.sh', returnTo: 'AFTER_FUNCTION.sh' },
        'SHOUT.sh',
        1,
      ),
      started('main', 'SHOUT.sh'),
      done('main', 'SHOUT.sh', result, 'AFTER_FUNCTION.sh', 0),
      started('main', 'AFTER_FUNCTION.sh'),
      done(
        'main',
        'AFTER_FUNCTION.sh',
        {
          kind: 'fork',
          next: 'DONE.sh',
          workers: [worker('main_worker1'), worker('main_worker2')],
        },
        'DONE.sh',
      ),
      started('main_worker1', 'WORKER.sh'),
      started('main_worker2', 'WORKER.sh'),
      done('main_worker1', 'WORKER.sh', result, null),
      // The second worker never ends: its result edge is the first one's, counted once.
      started('main', 'DONE.sh'),
    ];
    const c = coverage(graph, [run]);
    assert.deepEqual(c.states.never, []);
    // DONE.sh never ended: its result is the one edge left.
    assert.deepEqual(c.edges.never, [{ from: 'DONE.sh', kind: 'result', to: null }]);
    assert.equal(c.edges.taken.filter((e) => e.kind === 'fork').length, 1);
    assert.match(
      formatCoverage(c),
      /^coverage tour: 7\/7 states, 11\/12 edges\n {2}ran: 1_START, AFTER_CALL, AFTER_FUNCTION, COUNTDOWN, DONE, SHOUT, WORKER\n( {2}taken: .*\n){11} {2}never taken: DONE -result-> \(result\)$/,
    );
  });

  it('counts a join when the parent got its workers back, an ask when answered, its timeout when it ran out', async () => {
    const wf = box.write(
      {
        'START.md':
          'Fork: <fork next="GATHER.md" item="a">WORK.md</fork> then <join>GATHER.md</join>',
        'WORK.md': 'Reply <result>done</result>',
        'GATHER.md': 'Ask: <ask next="DONE.md" timeout="1h" timeout_next="LATE.md">ok?</ask>',
        'DONE.md': '<result>ok</result>',
        'LATE.md': '<result>late</result>',
      },
      'joins',
    );
    const graph = await loadWorkflowGraph(wf);
    const fork = {
      kind: 'fork',
      next: 'GATHER.md',
      join: true,
      workers: [{ id: 'main_work1', target: 'WORK.md', attributes: { item: 'a' } }],
    };
    const ask = (id: string) => ({
      kind: 'ask',
      next: 'DONE.md',
      timeoutNext: 'LATE.md',
      prompt: 'ok?',
      ask: { id },
    });
    const waited: RunEvent[] = [
      started('main', 'START.md'),
      done('main', 'START.md', fork, 'GATHER.md'),
      started('main_work1', 'WORK.md'),
      done('main_work1', 'WORK.md', result, null),
      // Not joined yet: the join counts at agent.joined.
      { type: 'agent.joined', agentId: 'main', state: 'GATHER.md', workers: 1 },
      started('main', 'GATHER.md'),
      done('main', 'GATHER.md', ask('ask_1'), 'DONE.md'),
      { type: 'ask.answered', agentId: 'main', askId: 'ask_1', expired: false },
    ];
    const c = coverage(graph, [waited]);
    const names = (edges: typeof c.edges.taken) => edges.map((e) => `${e.from} ${e.kind} ${e.to}`);
    assert.deepEqual(names(c.edges.taken), [
      'GATHER.md ask DONE.md',
      'START.md fork WORK.md',
      'START.md join GATHER.md',
      'START.md next GATHER.md',
      'WORK.md result null',
    ]);
    assert.ok(names(c.edges.never).includes('GATHER.md timeout LATE.md'));

    const expired: RunEvent[] = [
      started('main', 'START.md'),
      done('main', 'START.md', fork, 'GATHER.md'),
      started('main', 'GATHER.md'),
      done('main', 'GATHER.md', ask('ask_2'), 'DONE.md'),
      { type: 'ask.answered', agentId: 'main', askId: 'ask_2', expired: true },
    ];
    const late = coverage(graph, [expired]);
    assert.deepEqual(
      names(late.edges.taken),
      ['START.md fork WORK.md', 'GATHER.md timeout LATE.md'].sort(),
    );
    assert.ok(names(late.edges.never).includes('START.md join GATHER.md'));
    assert.ok(names(late.edges.never).includes('GATHER.md ask DONE.md'));
  });

  it("leaves out a callee workflow's states, and counts a script's edge the graph does not show", async () => {
    const graph = await loadWorkflowGraph(join(ROOT, 'workflows/examples/review-loop'));
    const run: RunEvent[] = [
      started('main', 'START.md'),
      done('main', 'START.md', goto('REVIEW.md'), 'REVIEW.md'),
      started('main', 'OTHER.md', '/elsewhere'),
      done('main', 'OTHER.md', goto('REVISE.md'), 'REVISE.md'),
      started('main', 'REVIEW.md'),
      done('main', 'REVIEW.md', goto('START.md'), 'START.md'),
    ];
    const c = coverage(graph, [run]);
    assert.deepEqual(c.states.taken, ['REVIEW.md', 'START.md']);
    assert.deepEqual(
      c.edges.taken.map((e) => `${e.from} ${e.kind} ${e.to}`),
      ['REVIEW.md goto START.md', 'START.md goto REVIEW.md'],
    );
    assert.match(formatCoverage(c), /^coverage review-loop: 2\/3 states, 2\/5 edges\n/);
  });

  it('reads the events of a real run: two workers count as one fork edge, the join and the answered ask count', async () => {
    const project = runProject(JOIN_ASK);
    try {
      const events: RunEvent[] = [];
      let control: RunControl | undefined;
      const outcome = await startWorkflow({
        path: project.wf,
        cwd: project.dir,
        stateDir: project.stateDir,
        settings: plainSettings({ onAsk: 'prompt' }),
        language: 'inline',
        markdown: fakeExecutor({
          'START.md': [
            {
              output:
                '<fork next="GATHER" item="a">WORK</fork><fork next="GATHER" item="b">WORK</fork><join>GATHER</join>',
            },
          ],
          'WORK.md': [{ output: '<result>a</result>' }, { output: '<result>b</result>' }],
          'GATHER.md': [{ output: '<ask next="DONE" timeout="1h" timeout_next="LATE">ok?</ask>' }],
          'DONE.md': [{ output: '<result>ok</result>' }],
        }),
        onControl: (c) => (control = c),
        onEvent: (e) => {
          events.push(e);
          if (e.type === 'ask.created') setImmediate(() => control!.answer(e.ask.id, 'yes'));
        },
      });
      assert.equal(outcome.status, 'completed');
      const c = coverage(await loadWorkflowGraph(project.wf), [events]);
      assert.equal(
        formatCoverage(c),
        [
          'coverage wf: 4/5 states, 6/8 edges',
          '  ran: DONE, GATHER, START, WORK',
          '  taken: DONE -result-> (result)',
          '  taken: GATHER -ask-> DONE',
          '  taken: START -fork-> WORK',
          '  taken: START -join-> GATHER',
          '  taken: START -next-> GATHER',
          '  taken: WORK -result-> (result)',
          '  never ran: LATE',
          '  never taken: GATHER -timeout-> LATE',
          '  never taken: LATE -result-> (result)',
        ].join('\n'),
      );
    } finally {
      project.remove();
    }
  });
});
