import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { join } from 'node:path';
import { loadWorkflowGraph, type WorkflowGraph } from '../../src/analysis/workflow-graph.js';
import type { Transition } from '../../src/analysis/workflow-node.js';
import { ROOT, Sandbox, sh } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

/** Each transition as `FROM -tag-> TO [return=R] [next=N]`, with resolved files. */
function edges(graph: WorkflowGraph): string[] {
  const ref = (r: Transition['target']) =>
    r.files.length
      ? r.files.join('|')
      : r.dynamic
        ? `dynamic:${r.written}`
        : `missing:${r.written}`;
  return graph.nodes.flatMap((n) =>
    n.transitions.map((t) =>
      [
        `${n.file} -${t.tag}-> ${ref(t.target)}`,
        t.returnTo && `return=${ref(t.returnTo)}`,
        t.next && `next=${ref(t.next)}`,
        t.implicit && 'implicit',
      ]
        .filter(Boolean)
        .join(' '),
    ),
  );
}

describe('workflow graph', () => {
  it('reads every tag of the tour, resolving names without extension', async () => {
    const graph = await loadWorkflowGraph(join(ROOT, 'workflows/examples/tour'));
    assert.deepEqual(graph.entries, ['1_START.sh']);
    assert.deepEqual(edges(graph), [
      '1_START.sh -call-> COUNTDOWN.sh return=AFTER_CALL.sh',
      'AFTER_CALL.sh -function-> SHOUT.sh return=AFTER_FUNCTION.sh',
      'AFTER_FUNCTION.sh -fork-> WORKER.sh next=DONE.sh',
      'AFTER_FUNCTION.sh -goto-> DONE.sh',
      'COUNTDOWN.sh -reset-> COUNTDOWN.sh',
    ]);
    assert.deepEqual(
      graph.nodes.filter((n) => n.result).map((n) => n.file),
      ['COUNTDOWN.sh', 'DONE.sh', 'SHOUT.sh', 'WORKER.sh'],
    );
    assert.ok(graph.nodes.every((n) => n.kind === 'script'));
  });

  it('merges a policy entry with the prompt tag for the same transition, and marks the implicit one', async () => {
    const classify = await loadWorkflowGraph(join(ROOT, 'workflows/examples/classify'));
    assert.deepEqual(edges(classify), [
      'START.md -function-> CLASSIFY.md return=ROUTE.md implicit',
    ]);
    const start = classify.nodes.find((n) => n.file === 'START.md')!;
    assert.equal(start.transitions[0]!.inText, true);
    const hybrid = await loadWorkflowGraph(join(ROOT, 'workflows/examples/hybrid'));
    const summarize = hybrid.nodes.find((n) => n.file === 'SUMMARIZE.md')!;
    assert.deepEqual(
      summarize.transitions.map((t) => [t.target.files[0], t.implicit, t.inText]),
      [['CHECK.sh', true, false]],
    );
  });

  it('keeps dynamic, missing and ambiguous targets with what is known of them', async () => {
    const wf = box.write(
      {
        'START.sh': sh(
          'echo "<goto>$NEXT</goto>"',
          'echo "<goto>GONE</goto>"',
          'echo "<reset>B</reset>"',
        ),
        'B.md': '---\nallowed_transitions:\n  - { tag: goto, target: "{{where}}" }\n---\nGo.',
        'B.sh': sh('echo "<result>b</result>"'),
      },
      'refs',
    );
    const graph = await loadWorkflowGraph(wf);
    assert.deepEqual(edges(graph), [
      'B.md -goto-> dynamic:{{where}} implicit',
      'START.sh -goto-> dynamic:$NEXT',
      'START.sh -goto-> missing:GONE',
      'START.sh -reset-> B.md|B.sh',
    ]);
    const start = graph.nodes.find((n) => n.file === 'START.sh')!;
    assert.deepEqual(
      start.transitions.map((t) => t.target.problem),
      [undefined, 'ERR_STATE_NOT_FOUND', 'ERR_STATE_AMBIGUOUS'],
    );
  });

  it('records frontmatter errors and warnings instead of throwing', async () => {
    const wf = box.write(
      {
        'START.md': '---\nmodel: [x\n---\nHi',
        'B.md': '---\ncolour: red\n---\n<result>x</result>',
      },
      'front',
    );
    const graph = await loadWorkflowGraph(wf);
    const [b, start] = graph.nodes;
    assert.match(start!.frontmatterError!, /^malformed YAML frontmatter/);
    assert.deepEqual(b!.warnings, [
      'unknown frontmatter key "colour" (known: allowed_transitions, model, fallback_models, effort, timeout, force_implicit, budget, tools, allowed_tools, disallowed_tools, mcp_servers, mcp_inherit, append_system_prompt, add_dirs, permission_mode, on_denial)',
    ]);
    assert.equal(b!.result, true);
  });

  it('records a missing or ambiguous entry and still reads the states', async () => {
    const none = await loadWorkflowGraph(
      box.write({ 'A.sh': sh('echo "<result>a</result>"') }, 'no-entry'),
    );
    assert.deepEqual(
      [none.entries, none.entryProblem?.code, none.nodes.length],
      [[], 'ERR_ENTRY_NOT_FOUND', 1],
    );
    const two = await loadWorkflowGraph(
      box.write(
        { 'START.md': '<result>a</result>', 'START.sh': sh('echo "<result>b</result>"') },
        'two',
      ),
    );
    assert.deepEqual(
      [two.entries, two.entryProblem?.code],
      [['START.md', 'START.sh'], 'ERR_ENTRY_AMBIGUOUS'],
    );
    assert.equal(two.display('START.md'), join(box.dir, 'two', 'START.md'));
  });

  it('starts a single-file scope at that file', async () => {
    const graph = await loadWorkflowGraph(join(ROOT, 'workflows/examples/review-loop/REVIEW.md'));
    assert.deepEqual(graph.entries, ['REVIEW.md']);
    assert.equal(graph.display('START.md'), join(ROOT, 'workflows/examples/review-loop/START.md'));
  });
});
