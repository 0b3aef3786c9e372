import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import type { WorkflowState } from '../../machines/types.js';
import { composeRun } from '../../src/runtime/compose-run.js';
import { openScope } from '../../src/scope/scope.js';
import { ScopeSet } from '../../src/scope/scope-set.js';
import { fakeExecutor } from '../helpers/step-deps.js';
import { plainSettings, runProject } from '../helpers/run-world.js';

function freshState(id: string, wf: string): WorkflowState {
  const now = new Date().toISOString();
  return {
    version: 1,
    workflow_id: id,
    status: 'running',
    scope: { kind: 'dir', path: wf, entry: 'START.md' },
    started_at: now,
    updated_at: now,
    options: {
      timeout_seconds: 60,
      max_parallel: 2,
      budget_usd: 0,
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
        state: 'START.md',
        session: null,
        branchFrom: null,
        stack: [],
        cwd: wf,
        attributes: {},
        input: null,
        status: 'active',
      },
    ],
    results: {},
  };
}

describe('composeRun', () => {
  let project: ReturnType<typeof runProject>;
  afterEach(() => project.remove());

  async function run(
    id: string,
    replies: Record<string, Array<{ output: string; session: string; costUsd: number }>>,
    resumed = false,
  ) {
    const scope = await openScope(project.wf);
    const scopes = new ScopeSet(scope);
    const markdown = fakeExecutor(replies);
    const stateFile = join(project.stateDir, `${id}.json`);
    try {
      const outcome = await composeRun({
        state: freshState(id, project.wf),
        scopes,
        stateFile,
        settings: plainSettings(),
        hooks: { onEvent: (e) => project.events.push(e), markdown, language: 'inline' },
        resumed,
      });
      return { outcome, stateFile, markdown };
    } finally {
      await scopes.dispose();
      await scope.dispose();
    }
  }

  it('runs the statecharts with the step actor to the end: outcome, events, the state file and the task folder', async () => {
    project = runProject({
      'START.md': 'Go on with <goto>END</goto>.',
      'END.md': 'Put notes in {{task_folder}}; finish with <result>...</result>.',
    });
    const { outcome, stateFile, markdown } = await run('c1', {
      'START.md': [{ output: '<goto>END</goto>', session: 's1', costUsd: 0.1 }],
      'END.md': [{ output: '<result>all done</result>', session: 's1', costUsd: 0.2 }],
    });
    assert.equal(outcome.status, 'completed');
    assert.deepEqual(outcome.results, { main: 'all done' });
    assert.equal(Math.round(outcome.totalCostUsd * 100), 30);
    assert.equal(outcome.workflow, 'wf');
    assert.deepEqual(
      markdown.requests.map((r) => r.file),
      ['START.md', 'END.md'],
    );
    const types = project.events.map((e) => e.type);
    assert.equal(types[0], 'run.started');
    assert.equal(types.at(-1), 'run.finished');
    assert.equal(types.filter((t) => t === 'step.done').length, 2);
    const started = project.events[0]!;
    assert.ok(
      started.type === 'run.started' && started.resumed === false && started.onAsk === 'pause',
    );
    const stored = JSON.parse(readFileSync(stateFile, 'utf8')) as WorkflowState;
    assert.equal(stored.status, 'completed');
    assert.deepEqual(stored.results, { main: 'all done' });
    assert.ok(outcome.stateWrites.writes > 0);
    assert.ok(
      existsSync(join(project.dir, '.raymond/tasks/c1/main')),
      'task folders start at the project holding .raymond/state',
    );
  });

  it('with --on-ask=pause ends the run asking once every agent waits, the ask in its outcome', async () => {
    project = runProject({ 'START.md': 'Ask.', 'YES.md': 'ok' });
    const { outcome } = await run(
      'c2',
      { 'START.md': [{ output: '<ask next="YES">Deploy?</ask>', session: 's1', costUsd: 0 }] },
      true,
    );
    assert.equal(outcome.status, 'asking');
    assert.deepEqual(
      outcome.asks.map((a) => [a.agent_id, a.prompt, a.next]),
      [['main', 'Deploy?', 'YES.md']],
    );
    const finished = project.events.at(-1)!;
    assert.ok(
      finished.type === 'run.finished' &&
        finished.status === 'asking' &&
        finished.asks?.length === 1,
    );
    assert.ok(project.events[0]!.type === 'run.started' && project.events[0].resumed === true);
  });
});
