import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { join } from 'node:path';
import { createActor, createMachine } from 'xstate';
import { loadWorkflowGraph } from '../../src/analysis/workflow-graph.js';
import { xstateMachine } from '../../src/analysis/xstate-export.js';
import { ROOT, Sandbox, sh } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

async function machineOf(example: string) {
  const config = JSON.parse(
    JSON.stringify(
      xstateMachine(await loadWorkflowGraph(join(ROOT, 'workflows/examples', example))),
    ),
  );
  return { config, machine: createMachine(config) };
}

describe('XState export', () => {
  it('turns the tour into a machine that createMachine accepts, one state per file', async () => {
    const { config, machine } = await machineOf('tour');
    assert.equal(config.id, 'tour');
    assert.equal(config.initial, '1_START_sh');
    assert.deepEqual(Object.keys(machine.root.states).sort(), [
      '1_START_sh',
      'AFTER_CALL_sh',
      'AFTER_FUNCTION_sh',
      'COUNTDOWN_sh',
      'DONE_sh',
      'SHOUT_sh',
      'WORKER_sh',
      'result',
    ]);
    assert.equal(machine.root.states.result!.type, 'final');
    assert.deepEqual(config.states.AFTER_FUNCTION_sh.meta, {
      file: 'AFTER_FUNCTION.sh',
      kind: 'script',
      entry: false,
    });
  });

  it('follows the tags as events, ending in the final result state', async () => {
    const { machine } = await machineOf('tour');
    const actor = createActor(machine).start();
    const path = ['call', 'reset', 'result'].map((type) => {
      actor.send({ type });
      return actor.getSnapshot().value;
    });
    assert.deepEqual(path, ['COUNTDOWN_sh', 'COUNTDOWN_sh', 'result']);
    assert.equal(actor.getSnapshot().status, 'done');
    const again = createActor(machine).start();
    for (const type of ['return', 'return', 'fork']) again.send({ type });
    assert.equal(again.getSnapshot().value, 'WORKER_sh');
  });

  it('lists every target of an event that leads to several states, and leaves out unknown ones', async () => {
    const wf = box.write(
      {
        'START.sh': sh(
          'echo "<goto>A.sh</goto>"',
          'echo "<goto>B.sh</goto>"',
          'echo "<goto>$X</goto>"',
          'echo "<reset>GONE</reset>"',
        ),
        'A.sh': sh('echo "<result>a</result>"'),
        'B.sh': sh('echo "<goto>A.sh</goto>"'),
      },
      'several',
    );
    const config = xstateMachine(await loadWorkflowGraph(wf));
    assert.deepEqual(config.states.START_sh!.on, {
      goto: [{ target: 'A_sh' }, { target: 'B_sh' }],
    });
    createMachine(JSON.parse(JSON.stringify(config)));
    const research = await machineOf('research');
    assert.deepEqual(research.config.states.START_md.on, {
      call: { target: 'RESEARCH_md' },
      return: { target: 'ANSWER_md' },
    });
    assert.deepEqual(research.config.states.RESEARCH_md.on, {
      goto: { target: 'RESEARCH_md' },
      result: { target: 'result' },
    });
  });
});
