import { diagramModel, stateIds } from './diagram-model.js';
import { layoutDiagram } from './diagram-layout.js';
import { DIAGRAM_SVG_STYLE, escapeHtml, nodeSize, renderSvg } from './diagram-svg.js';
import type { WorkflowGraph } from './workflow-graph.js';
import { clientScript } from '../web/client-scripts.js';

const STYLE = `
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1a202c; background: #f7fafc; }
header { padding: 12px 20px; background: #fff; border-bottom: 1px solid #e2e8f0; }
header h1 { margin: 0 0 4px; font-size: 18px; }
header p { margin: 0; color: #4a5568; }
.legend span { display: inline-block; margin-right: 16px; }
.swatch { display: inline-block; width: 22px; height: 14px; vertical-align: -2px; margin-right: 4px; border: 1.5px solid; }
main { display: flex; align-items: flex-start; gap: 16px; padding: 16px 20px; }
#graph { flex: 1 1 auto; overflow: auto; background: #fff; border: 1px solid #e2e8f0; border-radius: 6px; padding: 8px; }
aside { flex: 0 0 40%; max-width: 640px; position: sticky; top: 16px; background: #fff; border: 1px solid #e2e8f0; border-radius: 6px; padding: 12px 16px; }
aside h2 { margin: 0 0 2px; font-size: 16px; font-family: ui-monospace, Menlo, Consolas, monospace; }
aside .kind { margin: 0 0 8px; color: #718096; }
aside pre { margin: 0; max-height: 75vh; overflow: auto; padding: 10px; background: #f7fafc; border-radius: 4px; font: 12.5px/1.45 ui-monospace, Menlo, Consolas, monospace; white-space: pre-wrap; word-break: break-word; }
${DIAGRAM_SVG_STYLE}`;

/**
 * A self-contained HTML page of a workflow: the diagram as inline SVG, laid
 * out here, and every state's text embedded, shown beside the diagram when
 * its box is clicked (src/web/client/diagram-page.ts). It loads nothing
 * from the network.
 */
export function diagramHtml(graph: WorkflowGraph): string {
  const model = diagramModel(graph);
  const svg = renderSvg(layoutDiagram(model, nodeSize));
  const ids = stateIds(graph.nodes.map((n) => n.file));
  const texts = graph.nodes.map((n) => {
    const kind = n.kind === 'markdown' ? 'markdown prompt' : 'script';
    return `<pre data-for="${ids.get(n.file)}" data-file="${escapeHtml(n.file)}" data-kind="${kind}${n.entry ? ', entry state' : ''}">${escapeHtml(n.text)}</pre>`;
  });
  const entry = graph.entries[0] ?? graph.nodes[0]?.file;
  const name = escapeHtml(graph.name);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${name}: workflow diagram</title>
<style>${STYLE}</style>
</head>
<body data-entry="${entry === undefined ? '' : ids.get(entry)}">
<header>
<h1>${name}</h1>
<p class="legend"><span><i class="swatch markdown"></i>markdown prompt</span><span><i class="swatch script"></i>script</span><span>solid arrow: goto, call, function, next</span><span>dotted arrow: reset, fork, return</span></p>
<p>Click a state to see its file.</p>
</header>
<main>
<div id="graph">
${svg}
</div>
<aside>
<h2 id="file-name">&nbsp;</h2>
<p class="kind" id="file-kind"></p>
<pre id="file-text"></pre>
</aside>
</main>
<div hidden>
${texts.join('\n')}
</div>
<script>${clientScript('diagram-page')}</script>
</body>
</html>
`;
}

/**
 * The diagram alone, as an SVG file with its style inside: the live page
 * (`--inspect`, `raymond serve`) loads it and marks the agents on it.
 */
export function diagramSvgFile(graph: WorkflowGraph): string {
  const svg = renderSvg(layoutDiagram(diagramModel(graph), nodeSize));
  return svg
    .replace('<svg ', '<svg xmlns="http://www.w3.org/2000/svg" ')
    .replace('<defs>', `<style>${DIAGRAM_SVG_STYLE}</style><defs>`);
}
