import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import type { RunEvent } from '../../machines/run-events.js';
import type { ResolvedDecisionData } from '../../machines/types.js';
import { SpanTree } from '../../src/telemetry/span-tree.js';

/** A tree whose spans land in memory as each ends. */
function tree(inherited?: string) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const t = new SpanTree(provider.getTracer('test'), inherited);
  const spans = () => exporter.getFinishedSpans();
  const named = (name: string): ReadableSpan => {
    const s = spans().find((x) => x.name === name);
    assert.ok(
      s,
      `a span named ${name} among ${spans()
        .map((x) => x.name)
        .join(', ')}`,
    );
    return s;
  };
  return { t, spans, named };
}

const started: RunEvent = {
  type: 'run.started',
  workflowId: 'wf-1',
  workflow: 'demo',
  resumed: false,
  at: 1,
  budgetUsd: 5,
  totalCostUsd: 0,
  counts: { idle: 1, invoking: 0, 'awaiting-child': 0, terminated: 0, paused: 0, asking: 0 },
};

function done(
  agentId: string,
  from: string,
  decision: ResolvedDecisionData,
  to: string | null,
  costUsd: number,
  workers: string[] = [],
): RunEvent {
  return {
    type: 'step.done',
    agentId,
    from,
    decision,
    to,
    session: null,
    depth: 0,
    costUsd,
    totalCostUsd: 0,
    workers: workers.map((id) => ({ id, state: 'W.sh', attributes: {} })),
  };
}

const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

describe('the span tree of a run', () => {
  it('nests run, agents, steps and turns, with the costs of each', () => {
    const { t, spans, named } = tree();
    t.event(started);
    t.event({ type: 'step.started', agentId: 'main', state: 'START.md' });
    t.event({ type: 'turn.started', agentId: 'main', state: 'START.md' });
    const turnEnv = t.env('main')!;
    t.event({ type: 'turn.done', agentId: 'main', costUsd: 0.25, error: 'no tag' });
    t.event({ type: 'turn.started', agentId: 'main', state: 'START.md' });
    t.event({ type: 'turn.done', agentId: 'main', costUsd: 0.5 });
    t.event({
      type: 'step.measured',
      agentId: 'main',
      state: 'START.md',
      backend: 'claude',
      model: 'sonnet',
      turns: 2,
      retries: 0,
      reminders: 1,
      costUsd: 0.75,
      tokens: 1234,
      startedAt: 1,
      wallMs: 10,
      cpuMs: 3,
      outcome: 'fork',
      width: 1,
    });
    t.event(
      done('main', 'START.md', { kind: 'fork', next: 'END.md', workers: [] }, 'END.md', 0.75, [
        'w1',
      ]),
    );
    t.event({ type: 'agent.forked', parentId: 'main', id: 'w1', state: 'W.sh', attributes: {} });
    t.event({ type: 'step.started', agentId: 'w1', state: 'W.sh' });
    const scriptEnv = t.env('w1')!;
    t.event(done('w1', 'W.sh', { kind: 'result', payload: 'ok' }, null, 0));
    t.event({ type: 'step.started', agentId: 'main', state: 'END.md' });
    t.event(done('main', 'END.md', { kind: 'result', payload: 'end' }, null, 0.1));
    t.event({
      type: 'run.finished',
      workflowId: 'wf-1',
      status: 'completed',
      totalCostUsd: 0.85,
      steps: 3,
      elapsedMs: 5,
    });

    const run = named('raymond run demo');
    const main = named('agent main');
    const w1 = named('agent w1');
    const start = named('step START.md');
    const turns = spans().filter((s) => s.name === 'turn START.md');
    assert.equal(parentOf(run), undefined);
    assert.equal(parentOf(main), run.spanContext().spanId);
    assert.equal(parentOf(w1), run.spanContext().spanId);
    assert.equal(parentOf(start), main.spanContext().spanId);
    assert.equal(parentOf(named('step W.sh')), w1.spanContext().spanId);
    assert.equal(turns.length, 2);
    for (const turn of turns) assert.equal(parentOf(turn), start.spanContext().spanId);
    assert.equal(new Set(spans().map((s) => s.spanContext().traceId)).size, 1, 'one trace');

    assert.deepEqual(
      turns.map((s) => [s.attributes['raymond.cost_usd'], s.status.code]),
      [
        [0.25, 2],
        [0.5, 0],
      ],
    );
    assert.equal(start.attributes['raymond.cost_usd'], 0.75);
    assert.equal(start.attributes['raymond.tokens'], 1234);
    assert.equal(start.attributes['gen_ai.request.model'], 'sonnet');
    assert.equal(start.attributes['raymond.outcome'], 'fork');
    assert.equal(start.attributes['raymond.agent_id'], 'main');
    assert.equal(main.attributes['raymond.cost_usd'], 0.85);
    assert.equal(w1.attributes['raymond.parent_agent_id'], 'main');
    assert.equal(run.attributes['raymond.cost_usd'], 0.85);
    assert.equal(run.attributes['raymond.outcome'], 'completed');

    // A turn's process runs under its turn span; a script's under its step span.
    const traceId = run.spanContext().traceId;
    assert.equal(turnEnv.TRACEPARENT, `00-${traceId}-${turns[0]!.spanContext().spanId}-01`);
    assert.equal(
      scriptEnv.TRACEPARENT,
      `00-${traceId}-${named('step W.sh').spanContext().spanId}-01`,
    );
    assert.equal(
      scriptEnv.OTEL_RESOURCE_ATTRIBUTES,
      'raymond.workflow_id=wf-1,raymond.agent_id=w1,raymond.state=W.sh',
    );
    assert.equal(t.env('main'), undefined, 'no environment outside a step');
  });

  it('marks a failed step, its open turn, its agent and the run as errors', () => {
    const { t, named } = tree();
    t.event(started);
    t.event({ type: 'step.started', agentId: 'main', state: 'START.md' });
    t.event({ type: 'turn.started', agentId: 'main', state: 'START.md' });
    t.event({
      type: 'agent.failed',
      agentId: 'main',
      state: 'START.md',
      totalCostUsd: 0.2,
      failure: {
        kind: 'step-failure',
        code: 'ERR_AGENT_REFUSED',
        message: 'not logged in',
        pauses: false,
        spentUsd: 0.2,
        sessionCosts: {},
      },
    });
    t.event({
      type: 'run.finished',
      workflowId: 'wf-1',
      status: 'failed',
      error: 'START.md: not logged in',
      totalCostUsd: 0.2,
      steps: 0,
      elapsedMs: 5,
    });
    for (const name of ['turn START.md', 'step START.md', 'agent main', 'raymond run demo'])
      assert.equal(named(name).status.code, 2, `${name} is an error`);
    assert.equal(named('step START.md').attributes['raymond.cost_usd'], 0.2);
    assert.equal(named('step START.md').attributes['raymond.error_code'], 'ERR_AGENT_REFUSED');
    assert.equal(named('agent main').attributes['raymond.outcome'], 'failed');
    assert.match(String(named('agent main').status.message), /ERR_AGENT_REFUSED: not logged in/);
  });

  it('ends the spans a stopped run left open, and keeps the user resource attributes', () => {
    const { t, spans } = tree('team=core');
    t.event(started);
    t.event({ type: 'step.started', agentId: 'main', state: 'SLOW.sh' });
    assert.equal(
      t.env('main')!.OTEL_RESOURCE_ATTRIBUTES,
      'team=core,raymond.workflow_id=wf-1,raymond.agent_id=main,raymond.state=SLOW.sh',
    );
    assert.equal(spans().length, 0, 'nothing ended yet');
    t.event({
      type: 'run.finished',
      workflowId: 'wf-1',
      status: 'paused',
      totalCostUsd: 0,
      steps: 0,
      elapsedMs: 5,
    });
    assert.deepEqual(
      spans().map((s) => [s.name, s.attributes['raymond.outcome']]),
      [
        ['step SLOW.sh', 'paused'],
        ['agent main', 'paused'],
        ['raymond run demo', 'paused'],
      ],
    );
  });
});
