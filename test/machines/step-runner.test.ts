import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createActor, createMachine, type AnyActorRef } from 'xstate';
import type { StepEndEvent, StepInput, StepResult } from '../../machines/agent-types.js';
import { agentFromStored } from '../../machines/run-store.js';
import { stepRunner, type RunStep } from '../../machines/step-runner.js';
import { freshState } from '../helpers/fake-actors.js';

const input = (): StepInput => ({
  record: agentFromStored(freshState('START').agents[0]!),
  forkCount: 0,
  sessionCosts: {},
});
const result: StepResult = {
  decision: { kind: 'result', payload: 'ok' },
  session: null,
  costUsd: 0,
} as unknown as StepResult;

/** A frame stand-in: an actor that records the events it is sent. */
function frame(): { ref: AnyActorRef; got: StepEndEvent[] } {
  const got: StepEndEvent[] = [];
  const ref = createActor(
    createMachine({
      on: { '*': { actions: ({ event }) => got.push(event as StepEndEvent) } },
    }),
  );
  ref.start();
  return { ref, got };
}

/** A step that waits until released, and says whether its signal was aborted. */
function heldStep() {
  const signals: AbortSignal[] = [];
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const run: RunStep = async (_input, signal) => {
    signals.push(signal);
    await released;
    return result;
  };
  return { run, signals, release };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('stepRunner', () => {
  it("runs a frame's step and sends the frame step.finished with its result", async () => {
    const runner = createActor(stepRunner(async () => result)).start();
    const f = frame();
    runner.send({ type: 'step.run', input: input(), frame: f.ref });
    await tick();
    assert.deepEqual(f.got, [{ type: 'step.finished', output: result }]);
  });

  it('sends step.errored with what the step rejected with', async () => {
    // A step rejects with the failure as plain data (it is stored in the state file), not an Error.
    const failure = { kind: 'step-failure', code: 'ERR_SCRIPT_FAILED' };
    const runner = createActor(
      stepRunner(async () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        throw failure;
      }),
    ).start();
    const f = frame();
    runner.send({ type: 'step.run', input: input(), frame: f.ref });
    await tick();
    assert.deepEqual(f.got, [{ type: 'step.errored', error: failure }]);
  });

  it('aborts every step in flight on steps.abort, and drops their ends', async () => {
    const held = heldStep();
    const runner = createActor(stepRunner(held.run)).start();
    const a = frame();
    const b = frame();
    runner.send({ type: 'step.run', input: input(), frame: a.ref });
    runner.send({ type: 'step.run', input: input(), frame: b.ref });
    runner.send({ type: 'steps.abort' });
    assert.deepEqual(
      held.signals.map((s) => s.aborted),
      [true, true],
    );
    held.release();
    await tick();
    assert.deepEqual([...a.got, ...b.got], [], 'an aborted step reports nothing');
  });

  it('aborts every step in flight when it is stopped (its supervisor stopped)', async () => {
    const held = heldStep();
    const runner = createActor(stepRunner(held.run)).start();
    const f = frame();
    runner.send({ type: 'step.run', input: input(), frame: f.ref });
    assert.equal(held.signals[0]!.aborted, false);
    runner.stop();
    assert.equal(held.signals[0]!.aborted, true);
    held.release();
    await tick();
    assert.deepEqual(f.got, []);
  });
});
