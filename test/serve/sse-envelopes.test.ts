import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunEvent } from '../../machines/run-events.js';
import { rayEnvelopes } from '../../src/serve/sse-envelopes.js';

const measured: Extract<RunEvent, { type: 'step.measured' }> = {
  type: 'step.measured',
  agentId: 'main_w1',
  state: 'FIX.md',
  scope: 'fixer-1a2b3c4d',
  backend: 'claude',
  model: 'claude-sonnet-4-5',
  turns: 2,
  retries: 1,
  reminders: 0,
  costUsd: 0.0123,
  tokens: 4567,
  startedAt: 1000,
  wallMs: 3400,
  cpuMs: 120,
  outcome: 'fork',
  width: 3,
};

describe("the stream's envelopes", () => {
  it("sends what a step took as Raymond's own state_measured, in ray's field style", () => {
    assert.deepEqual(rayEnvelopes(measured, 'r1', false), [
      {
        type: 'state_measured',
        AgentID: 'main_w1',
        StateName: 'FIX.md',
        Scope: 'fixer-1a2b3c4d',
        Backend: 'claude',
        Model: 'claude-sonnet-4-5',
        Turns: 2,
        Retries: 1,
        Reminders: 0,
        CostUSD: 0.0123,
        Tokens: 4567,
        WallMs: 3400,
        CPUMs: 120,
        Outcome: 'fork',
        Width: 3,
      },
    ]);
  });

  it('leaves out the scope and width a step has not, and names no model for a script', () => {
    const { scope: _s, width: _w, model: _m, ...script } = measured;
    const [env] = rayEnvelopes({ ...script, backend: 'script', turns: 0 }, 'r1', false);
    assert.equal(env!.type, 'state_measured');
    assert.equal(env!.Model, '');
    assert.ok(!('Scope' in env!) && !('Width' in env!));
  });
});
