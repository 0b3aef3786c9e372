import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StepInput, StepResult } from '../../machines/agent.machine.js';
import type { AgentRecord, ResolvedDecision } from '../../machines/types.js';
import type { Forecast, Forecaster } from '../../src/history/history-types.js';
import { gateAfterFork, gateBeforeStep } from '../../src/runtime/cost-gate.js';

const forecast = (usd: number): Forecast => ({
  p50Usd: usd / 2,
  p90Usd: usd,
  p50Ms: 1,
  p90Ms: 2,
  basis: usd === 0 ? 'free' : 'guess',
});

/** A fake forecaster: a step costs `step`, a worker `worker` (p90); scripts nothing. */
const fake = (step: number, worker: number): Forecaster => ({
  step: (_scope, state) => forecast(state.endsWith('.md') ? step : 0),
  worker: (_scope, state) => forecast(state.endsWith('.md') ? worker : 0),
});

const record = (state: string): AgentRecord => ({
  id: 'main',
  state,
  session: null,
  branchFrom: null,
  stack: null,
  cwd: '/w',
  attributes: {},
  input: 'in',
  status: 'active',
});

const input = (state: string, amountUsd?: number, spentUsd = 0): StepInput => ({
  record: record(state),
  forkCount: 0,
  sessionCosts: {},
  ...(amountUsd !== undefined ? { gate: { amountUsd, spentUsd } } : {}),
});

const forked = (n: number, target = 'W.md'): StepResult => ({
  decision: {
    kind: 'fork',
    next: 'END.md',
    workers: Array.from({ length: n }, (_, i) => ({
      id: `main_w${i + 1}`,
      target,
      attributes: {},
      taskFolder: { path: '/t', number: 1 },
    })),
  } as unknown as ResolvedDecision,
  session: 's1',
  costUsd: 0.01,
  freshSessions: Array.from({ length: n + 1 }, (_, i) => `f${i}`),
});

describe('cost gate: forecasts against the amount', () => {
  it('stops a markdown step whose p90 would take the run past the amount', () => {
    const stopped = gateBeforeStep(fake(0.3, 0), input('A.md', 1, 0.8));
    assert.equal(stopped?.decision.kind, 'ask');
    const ask = stopped.decision.kind === 'ask' ? stopped.decision.ask : undefined;
    assert.deepEqual(ask?.gate, {
      kind: 'state',
      where: 'A.md',
      forecast_usd: 0.3,
      spent_usd: 0.8,
      amount_usd: 1,
    });
    assert.equal(stopped.costUsd, 0);
  });

  it('lets a step within the amount, a script, or a run without a gate go', () => {
    assert.equal(gateBeforeStep(fake(0.1, 0), input('A.md', 1, 0.8)), undefined);
    assert.equal(gateBeforeStep(fake(5, 0), input('A.sh', 1, 0.8)), undefined);
    assert.equal(gateBeforeStep(fake(5, 0), input('A.md')), undefined);
    assert.equal(gateBeforeStep(undefined, input('A.md', 1)), undefined);
  });

  it('keeps a fork past the amount, with its reserved sessions, for the answer', () => {
    const out = gateAfterFork(fake(0, 0.02), input('M.md', 0.5, 0.1), forked(50));
    assert.equal(out.decision.kind, 'ask');
    const gate = out.decision.kind === 'ask' ? out.decision.ask.gate! : undefined;
    assert.equal(gate?.kind, 'fork');
    assert.equal(gate?.workers, 50);
    assert.ok(Math.abs(gate.forecast_usd - 1) < 1e-9);
    assert.ok(Math.abs(gate.spent_usd - 0.11) < 1e-9, 'the step itself is counted as spent');
    assert.equal(gate?.decision?.workers.length, 50);
    assert.equal(gate?.fresh?.length, 51);
    assert.deepEqual(out.freshSessions, ['f0']);
    assert.equal(out.costUsd, 0.01, 'the step that ran is still charged');
    assert.equal(out.session, 's1');
  });

  it('lets a fork of free workers, or one within the amount, go as decided', () => {
    const scripts = forked(50, 'W.sh');
    assert.equal(gateAfterFork(fake(0, 1), input('M.md', 0.5), scripts), scripts);
    const small = forked(2);
    assert.equal(gateAfterFork(fake(0, 0.1), input('M.md', 0.5), small), small);
  });
});
