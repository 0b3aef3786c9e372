import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { join } from 'node:path';
import { diagramHtml } from '../../src/analysis/diagram-html.js';
import { loadWorkflowGraph } from '../../src/analysis/workflow-graph.js';
import { ROOT, Sandbox, sh } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

describe('HTML diagram page', () => {
  it('is one self-contained page: inline style, script and SVG, nothing fetched', async () => {
    const html = diagramHtml(await loadWorkflowGraph(join(ROOT, 'workflows/examples/tour')));
    assert.match(html, /^<!doctype html>/);
    assert.doesNotMatch(html, /https?:\/\//);
    assert.doesNotMatch(html, /<script[^>]*\bsrc=|<link\b|<img\b|<iframe\b|@import|url\((?!#)/i);
    assert.equal((html.match(/<svg\b/g) ?? []).length, 1);
    assert.equal((html.match(/<script>/g) ?? []).length, 1);
  });

  it('has a box and the embedded text of every state, and starts on the entry', async () => {
    const graph = await loadWorkflowGraph(join(ROOT, 'workflows/examples/tour'));
    const html = diagramHtml(graph);
    for (const node of graph.nodes) {
      assert.match(
        html,
        new RegExp(
          `<g class="node script" data-id="${node.file.replace('.', '_')}" data-file="${node.file.replace('.', '\\.')}"`,
        ),
      );
      assert.match(
        html,
        new RegExp(
          `<pre data-for="${node.file.replace('.', '_')}" data-file="${node.file.replace('.', '\\.')}"`,
        ),
      );
    }
    assert.ok(
      html.includes(
        'echo &#39;&lt;call return=&quot;AFTER_CALL.sh&quot; input=&quot;3&quot;&gt;COUNTDOWN&lt;/call&gt;&#39;',
      ),
    );
    assert.match(html, /<body data-entry="1_START_sh">/);
    assert.match(html, /<g class="node start" data-id="start">/);
    assert.match(html, /<g class="node result" data-id="result">/);
    assert.match(
      html,
      /<path class="link dotted" d="M[^"]+" marker-end="url\(#arrow\)"><title>COUNTDOWN_sh → COUNTDOWN_sh: reset<\/title>/,
    );
  });

  it('escapes state texts and names, so a file cannot inject markup', async () => {
    const wf = box.write(
      {
        'START.sh': sh('echo "</pre><script>alert(1)</script>"', 'echo "<goto><b>.md</goto>"'),
        '<b>.md': '<result>x</result>',
      },
      'evil',
    );
    const html = diagramHtml(await loadWorkflowGraph(wf));
    assert.equal((html.match(/<script>/g) ?? []).length, 1);
    assert.ok(html.includes('&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(html.includes('data-file="&lt;b&gt;.md"'));
    assert.doesNotMatch(html, /<b>/);
  });
});
