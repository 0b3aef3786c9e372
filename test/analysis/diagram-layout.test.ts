import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { join } from 'node:path';
import { readdirSync } from 'node:fs';
import { layoutDiagram, type Layout, type PlacedNode } from '../../src/analysis/diagram-layout.js';
import { diagramModel } from '../../src/analysis/diagram-model.js';
import { nodeSize } from '../../src/analysis/diagram-svg.js';
import { loadWorkflowGraph } from '../../src/analysis/workflow-graph.js';
import { ROOT } from '../helpers/cli.js';

const EXAMPLES = join(ROOT, 'workflows/examples');

async function layout(example: string): Promise<Layout> {
  return layoutDiagram(diagramModel(await loadWorkflowGraph(join(EXAMPLES, example))), nodeSize);
}

function overlap(a: PlacedNode, b: PlacedNode): boolean {
  return (
    Math.abs(a.x - b.x) * 2 < a.width + b.width && Math.abs(a.y - b.y) * 2 < a.height + b.height
  );
}

describe('diagram layout', () => {
  for (const example of readdirSync(EXAMPLES).sort()) {
    it(`${example}: boxes inside the page, none overlapping, every arrow drawn`, async () => {
      const l = await layout(example);
      for (const [i, a] of l.nodes.entries()) {
        assert.ok(
          a.x - a.width / 2 >= 0 && a.x + a.width / 2 <= l.width,
          `${a.node.id} fits horizontally`,
        );
        assert.ok(
          a.y - a.height / 2 >= 0 && a.y + a.height / 2 <= l.height,
          `${a.node.id} fits vertically`,
        );
        for (const b of l.nodes.slice(i + 1))
          assert.ok(!overlap(a, b), `${a.node.id} and ${b.node.id} overlap`);
      }
      for (const r of l.links) {
        assert.match(r.path, /^M-?[\d.]+,-?[\d.]+( C(-?[\d.]+,-?[\d.]+ ?){3})+$/);
        assert.ok(Number.isFinite(r.labelAt.x) && Number.isFinite(r.labelAt.y));
      }
    });
  }

  it('puts each state below the one that leads to it, and the result marker last', async () => {
    const l = await layout('tour');
    const y = (id: string) => l.nodes.find((n) => n.node.id === id)!.y;
    assert.ok(y('start') < y('1_START_sh'));
    assert.ok(y('1_START_sh') < y('COUNTDOWN_sh') && y('1_START_sh') < y('AFTER_CALL_sh'));
    assert.ok(y('AFTER_CALL_sh') < y('AFTER_FUNCTION_sh') && y('AFTER_FUNCTION_sh') < y('DONE_sh'));
    assert.equal(Math.max(...l.nodes.map((n) => n.y)), y('result'));
  });

  it('draws an arrow back up from the right side of both boxes', async () => {
    const l = await layout('review-loop');
    const box = (id: string) => l.nodes.find((n) => n.node.id === id)!;
    const [revise, review] = [box('REVISE_md'), box('REVIEW_md')];
    assert.ok(revise.y > review.y);
    const back = l.links.find((r) => r.link.from === 'REVISE_md')!;
    const [start, end] = [
      back.path.match(/^M(-?[\d.]+),(-?[\d.]+)/)!,
      back.path.match(/ (-?[\d.]+),(-?[\d.]+)$/)!,
    ];
    // On the right edge, within the box's height (offset from the middle: the goto down shares the pair).
    assert.equal(Number(start[1]), revise.x + revise.width / 2);
    assert.ok(Math.abs(Number(start[2]) - revise.y) < revise.height / 2);
    assert.equal(Number(end[1]), review.x + review.width / 2);
    assert.ok(Math.abs(Number(end[2]) - review.y) < review.height / 2);
  });
});
