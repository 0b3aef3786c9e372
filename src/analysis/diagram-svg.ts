import type { DiagramNode } from './diagram-model.js';
import { labelWidth, type Layout, type PlacedNode, type RoutedLink } from './diagram-layout.js';

/** Average glyph width of the 13px sans-serif labels, generous so names fit their boxes. */
const CHAR_WIDTH = 7.8;

/** The diagram's own rules, for the page that shows it or inside a standalone SVG. */
export const DIAGRAM_SVG_STYLE = `
svg text { font: 13px system-ui, -apple-system, "Segoe UI", sans-serif; text-anchor: middle; dominant-baseline: central; }
.link { fill: none; stroke: #4a5568; stroke-width: 1.5; }
.link.dotted { stroke-dasharray: 5 4; }
.link-label rect { fill: #fff; stroke: #e2e8f0; }
.link-label text { font-size: 11.5px; fill: #2d3748; }
.node rect, .node polygon, .node circle { stroke-width: 1.5; }
.node.markdown rect, .swatch.markdown { fill: #eaf2ff; background: #eaf2ff; stroke: #3d6fb6; border-color: #3d6fb6; border-radius: 7px; }
.node.script rect, .swatch.script { fill: #fff4e0; background: #fff4e0; stroke: #b7791f; border-color: #b7791f; }
.node.start circle { fill: #2d3748; stroke: #2d3748; }
.node.start text { fill: #fff; font-size: 11px; }
.node.result circle { fill: #e6f6ea; stroke: #2f855a; }
.node.result text { font-size: 11px; }
.node.missing rect { fill: #fff0f0; stroke: #c53030; stroke-dasharray: 5 3; }
.node.dynamic polygon { fill: #f7f7f7; stroke: #718096; stroke-dasharray: 5 3; }
.node.workflow rect { fill: #f3ecff; stroke: #6b46c1; }
.node.workflow path { stroke: #6b46c1; fill: none; }
.node[data-file] { cursor: pointer; }
.node[data-file]:hover rect, .node[data-file]:focus rect { stroke-width: 2.5; }
.node.selected rect { stroke-width: 3; filter: drop-shadow(0 0 3px rgba(49, 130, 206, 0.6)); }
.node:focus { outline: none; }
`;

/** Escapes text for HTML and SVG content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** The size of a node's box, from its label. */
export function nodeSize(node: DiagramNode): { width: number; height: number } {
  if (node.kind === 'start') return { width: 44, height: 44 };
  if (node.kind === 'result') return { width: 56, height: 56 };
  const width = Math.max(90, Math.ceil(node.label.length * CHAR_WIDTH) + 32);
  return { width: node.kind === 'dynamic' ? width + 20 : width, height: 40 };
}

/**
 * The diagram as inline SVG: arrows first, then boxes, then arrow labels on
 * top. States are focusable groups carrying `data-id` and `data-file`, so the
 * page can show a state's file when it is clicked.
 */
export function renderSvg(layout: Layout): string {
  const { width, height } = layout;
  return [
    `<svg class="diagram" width="${round(width)}" height="${round(height)}" viewBox="0 0 ${round(width)} ${round(height)}" role="img" aria-label="workflow diagram">`,
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#4a5568"/></marker></defs>',
    ...layout.links.map(linkPath),
    ...layout.nodes.map(nodeGroup),
    ...layout.links.filter((l) => l.link.label).map(linkLabel),
    '</svg>',
  ].join('\n');
}

function round(n: number): string {
  return String(Math.round(n * 10) / 10);
}

function linkPath(routed: RoutedLink): string {
  const path = routed.path.replace(/-?\d+\.\d+/g, (n) => round(Number(n)));
  return `<path class="link${routed.link.dotted ? ' dotted' : ''}" d="${path}" marker-end="url(#arrow)"><title>${escapeHtml(`${routed.link.from} → ${routed.link.to}: ${routed.link.label || 'entry'}`)}</title></path>`;
}

function linkLabel(routed: RoutedLink): string {
  const { x, y } = routed.labelAt;
  const w = labelWidth(routed.link.label);
  return `<g class="link-label"><rect x="${round(x - w / 2)}" y="${round(y - 9)}" width="${round(w)}" height="18" rx="4"/><text x="${round(x)}" y="${round(y)}">${escapeHtml(routed.link.label)}</text></g>`;
}

function nodeGroup(placed: PlacedNode): string {
  const { node, x, y, width: w, height: h } = placed;
  const text = `<text x="${round(x)}" y="${round(y)}">${escapeHtml(node.label)}</text>`;
  const box = (rx: number) =>
    `<rect x="${round(x - w / 2)}" y="${round(y - h / 2)}" width="${round(w)}" height="${round(h)}" rx="${rx}"/>`;
  let shape: string;
  switch (node.kind) {
    case 'start':
      shape = `<circle cx="${round(x)}" cy="${round(y)}" r="${w / 2}"/>`;
      break;
    case 'result':
      shape = `<circle cx="${round(x)}" cy="${round(y)}" r="${w / 2}"/><circle class="inner" cx="${round(x)}" cy="${round(y)}" r="${w / 2 - 5}"/>`;
      break;
    case 'dynamic': {
      const [l, r, t, b, d] = [x - w / 2, x + w / 2, y - h / 2, y + h / 2, 12];
      shape = `<polygon points="${[
        [l, y],
        [l + d, t],
        [r - d, t],
        [r, y],
        [r - d, b],
        [l + d, b],
      ]
        .map((p) => p.map(round).join(','))
        .join(' ')}"/>`;
      break;
    }
    case 'markdown':
      shape = box(16);
      break;
    case 'workflow':
      // A subroutine box, as Mermaid draws one: a box with an inner rule at each side.
      shape = `${box(2)}<path class="inner" d="M${round(x - w / 2 + 6)},${round(y - h / 2)}v${round(h)}M${round(x + w / 2 - 6)},${round(y - h / 2)}v${round(h)}"/>`;
      break;
    default:
      shape = box(2);
  }
  const title = node.file
    ? `${node.file} (${node.kind === 'markdown' ? 'markdown prompt' : 'script'}): click to show it`
    : node.label;
  const state = node.file ? ` data-file="${escapeHtml(node.file)}" tabindex="0" role="button"` : '';
  return `<g class="node ${node.kind}" data-id="${node.id}"${state}><title>${escapeHtml(title)}</title>${shape}${text}</g>`;
}
