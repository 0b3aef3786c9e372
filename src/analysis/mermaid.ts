import type { DiagramModel, DiagramNode } from './diagram-model.js';

/** Colours per node kind; the same palette as the HTML page. */
const CLASSES: Record<DiagramNode['kind'], string> = {
  markdown: 'fill:#eaf2ff,stroke:#3d6fb6,color:#102a4c',
  script: 'fill:#fff4e0,stroke:#b7791f,color:#4a2f05',
  start: 'fill:#333,stroke:#333,color:#fff',
  result: 'fill:#e6f6ea,stroke:#2f855a,color:#123d24',
  missing: 'fill:#fff0f0,stroke:#c53030,color:#742a2a,stroke-dasharray:5 3',
  dynamic: 'fill:#f7f7f7,stroke:#777,color:#333,stroke-dasharray:5 3',
  workflow: 'fill:#f3ecff,stroke:#6b46c1,color:#2d1b69',
};

/** A quoted Mermaid label; Mermaid spells the characters that would end or break it as `#name;`. */
function label(text: string): string {
  return `"${text.replace(/"/g, '#quot;').replace(/</g, '#lt;').replace(/>/g, '#gt;')}"`;
}

function shape(node: DiagramNode): string {
  const text = label(node.label);
  switch (node.kind) {
    case 'markdown':
      return `(${text})`;
    case 'script':
      return `[${text}]`;
    case 'start':
      return `((${text}))`;
    case 'result':
      return `(((${text})))`;
    case 'dynamic':
      return `{{${text}}}`;
    case 'missing':
      return `[${text}]`;
    case 'workflow':
      return `[[${text}]]`;
  }
}

/**
 * A Mermaid flowchart of a workflow: markdown states as rounded boxes,
 * scripts as rectangles, arrows labelled with their tag (dotted for reset,
 * fork and return), a start marker at the entry and a result marker.
 */
export function toMermaid(model: DiagramModel): string {
  const lines = ['flowchart TD'];
  for (const node of model.nodes) lines.push(`  ${node.id}${shape(node)}`);
  for (const link of model.links) {
    const arrow = link.dotted ? '-.->' : '-->';
    const text = /^[\w ,]*$/.test(link.label) ? link.label : label(link.label);
    lines.push(`  ${link.from} ${arrow}${text ? `|${text}|` : ''} ${link.to}`);
  }
  for (const kind of Object.keys(CLASSES) as DiagramNode['kind'][]) {
    const ids = model.nodes.filter((n) => n.kind === kind).map((n) => n.id);
    if (ids.length === 0) continue;
    lines.push(`  classDef ${kind} ${CLASSES[kind]}`, `  class ${ids.join(',')} ${kind}`);
  }
  return `${lines.join('\n')}\n`;
}
