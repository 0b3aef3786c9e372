import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { loadWorkflowGraph } from '../../src/analysis/workflow-graph.js';
import { buildPlanGraph, linkKey } from '../../src/plan/plan-graph.js';
import {
  forkingStates,
  reachableFrom,
  staticVisits,
  statesInLoops,
} from '../../src/plan/reachable-states.js';
import { Sandbox, sh } from '../helpers/cli.js';
import { LOOPING_WORKFLOW } from '../helpers/plan-fixtures.js';

const box = new Sandbox();
after(() => box.remove());

describe('reachable states', () => {
  it('walks from the entry: loops, forked workers, and states no run reaches', async () => {
    const graph = buildPlanGraph([
      { graph: await loadWorkflowGraph(box.write(LOOPING_WORKFLOW, 'loop')) },
    ]);
    assert.equal(graph.entry, 'START.md');
    const reach = reachableFrom(graph, [graph.entry]);
    assert.deepEqual([...reach].sort(), [
      'REVIEW.md',
      'REVISE.md',
      'START.md',
      'WAIT.sh',
      'WORKER.md',
    ]);
    assert.deepEqual([...statesInLoops(graph, reach)].sort(), ['REVIEW.md', 'REVISE.md']);
    assert.deepEqual(forkingStates(graph, reach), ['START.md']);
    assert.deepEqual(Object.fromEntries(staticVisits(graph)), {
      'START.md': 'once',
      'WORKER.md': 'per-worker',
      'WAIT.sh': 'once',
      'REVIEW.md': 'loop',
      'REVISE.md': 'loop',
    });
  });

  it('counts a state that goes to itself as a loop, and a dynamic target as leading anywhere', async () => {
    const dir = box.write(
      {
        'START.sh': sh("echo '<goto>PICK</goto>'"),
        'PICK.md': '---\nallowed_transitions:\n  - { tag: goto, target: "{{next}}" }\n---\nPick.\n',
        'AGAIN.sh': sh("echo '<reset>AGAIN</reset>'"),
      },
      'dyn',
    );
    const graph = buildPlanGraph([{ graph: await loadWorkflowGraph(dir) }]);
    const visits = staticVisits(graph);
    assert.equal(visits.get('START.sh'), 'loop', 'PICK may lead back to START');
    assert.equal(visits.get('AGAIN.sh'), 'loop');
  });

  it('enters a callee workflow through the links the loader resolved', async () => {
    const main = box.write(
      {
        'START.sh': sh('echo \'<call-workflow return="END">../callee</call-workflow>\''),
        'END.sh': sh("echo '<result>ok</result>'"),
      },
      'caller',
    );
    const callee = box.write({ 'START.md': 'Work. <result>x</result>\n' }, 'callee');
    const graph = buildPlanGraph(
      [
        { graph: await loadWorkflowGraph(main) },
        { scope: 'callee-12345678', graph: await loadWorkflowGraph(callee) },
      ],
      new Map([[linkKey('START.sh', '../callee'), 'callee-12345678:START.md']]),
    );
    assert.deepEqual([...reachableFrom(graph, ['START.sh'])].sort(), [
      'END.sh',
      'START.sh',
      'callee-12345678:START.md',
    ]);
    assert.equal(graph.states.get('callee-12345678:START.md')?.scope, 'callee-12345678');
  });
});
