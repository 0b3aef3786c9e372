import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { join } from 'node:path';
import { diagramModel } from '../../src/analysis/diagram-model.js';
import { toMermaid } from '../../src/analysis/mermaid.js';
import { loadWorkflowGraph } from '../../src/analysis/workflow-graph.js';
import { ROOT, Sandbox, sh } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

async function mermaid(path: string): Promise<string[]> {
  return toMermaid(diagramModel(await loadWorkflowGraph(path))).split('\n');
}

describe('Mermaid flowchart', () => {
  it('draws the tour: shapes, tags, dotted reset/fork/return, start and result', async () => {
    const lines = await mermaid(join(ROOT, 'workflows/examples/tour'));
    assert.equal(lines[0], 'flowchart TD');
    for (const line of [
      '  start(("start"))',
      '  1_START_sh["1_START.sh"]',
      '  COUNTDOWN_sh["COUNTDOWN.sh"]',
      '  result((("result")))',
      '  start --> 1_START_sh',
      '  1_START_sh -->|call| COUNTDOWN_sh',
      '  1_START_sh -.->|return| AFTER_CALL_sh',
      '  COUNTDOWN_sh -.->|reset| COUNTDOWN_sh',
      '  AFTER_CALL_sh -->|function| SHOUT_sh',
      '  AFTER_CALL_sh -.->|return| AFTER_FUNCTION_sh',
      '  AFTER_FUNCTION_sh -.->|fork| WORKER_sh',
      '  AFTER_FUNCTION_sh -->|next, goto| DONE_sh',
      '  COUNTDOWN_sh -->|result| result',
      '  WORKER_sh -->|result| result',
      '  class 1_START_sh,AFTER_CALL_sh,AFTER_FUNCTION_sh,COUNTDOWN_sh,DONE_sh,SHOUT_sh,WORKER_sh script',
    ]) {
      assert.ok(lines.includes(line), `has ${JSON.stringify(line)}`);
    }
    assert.equal(lines.filter((l) => l.includes('-->|result| result')).length, 4);
  });

  it('draws markdown states as rounded boxes and marks implicit transitions', async () => {
    const lines = await mermaid(join(ROOT, 'workflows/examples/hybrid'));
    assert.ok(lines.includes('  SUMMARIZE_md("SUMMARIZE.md")'));
    assert.ok(lines.includes('  SUMMARIZE_md -->|"goto (implicit)"| CHECK_sh'));
    assert.ok(lines.includes('  START_sh -->|goto| SUMMARIZE_md'));
  });

  it('gives missing and dynamic targets their own boxes, and safe ids to odd names', async () => {
    const wf = box.write(
      {
        'START.sh': sh(
          'echo "<goto>$NEXT</goto>"',
          'echo "<goto>GONE</goto>"',
          'echo "<goto>a b.sh</goto>"',
        ),
        'a b.sh': sh('echo "<goto>x\\"y.md</goto>"'),
        'x"y.md': '<result>x</result>',
      },
      'odd',
    );
    const lines = await mermaid(wf);
    for (const line of [
      '  a_b_sh["a b.sh"]',
      '  x_y_md("x#quot;y.md")',
      '  dynamic_1{{"$NEXT"}}',
      '  missing_2["GONE (missing)"]',
      '  START_sh -->|goto| dynamic_1',
      '  START_sh -->|goto| missing_2',
      '  a_b_sh -->|goto| x_y_md',
    ]) {
      assert.ok(lines.includes(line), `has ${JSON.stringify(line)} in\n${lines.join('\n')}`);
    }
    assert.ok(
      lines.every((l) => !/^\s+\S*[.$"]\S*\s*(-->|-\.->)/.test(l)),
      'edge ids are plain',
    );
  });
});
