import type { WorkflowGraph } from './workflow-graph.js';
import type { StateRef, WorkflowRef } from './workflow-node.js';
import { tagsWith } from '../language/tag-scanner.js';

/** What a box of a diagram stands for (`workflow`: another workflow a cross-workflow tag leads into). */
export type DiagramNodeKind =
  'markdown' | 'script' | 'start' | 'result' | 'missing' | 'dynamic' | 'workflow';

export interface DiagramNode {
  /** Safe as a Mermaid, XState and HTML id: letters, digits and `_`. */
  id: string;
  label: string;
  kind: DiagramNodeKind;
  /** The state file, for markdown and script nodes. */
  file?: string;
  /** A markdown state whose `tools` are restricted: drawn with a lock. */
  locked?: boolean;
}

/** What a locked state's label begins with. */
export const LOCK = '\u{1F512} ';

export interface DiagramLink {
  from: string;
  to: string;
  /** The tags it stands for (`goto`, `call`, `return`, ...), joined when several share the arrow. */
  label: string;
  /** Dotted: the agent does not simply go on in its session (reset, fork, return). */
  dotted: boolean;
}

/** A workflow as boxes and arrows, shared by the Mermaid and HTML renderings. */
export interface DiagramModel {
  nodes: DiagramNode[];
  links: DiagramLink[];
}

/** Id of the start marker that points at the entry state. */
const START_ID = 'start';
/** Id of the marker that `<result>` arrows end at. */
const RESULT_ID = 'result';

/** Dotted arrows: the tags so marked (TAG_TRAITS), a callee's return and an ask's timeout. */
const DOTTED = new Set<string>([...tagsWith('dotted'), 'return', 'timeout']);

/**
 * Ids for state files: the name with every other character turned into `_`
 * (`1_START.sh` → `1_START_sh`). A file name always has an extension, so an id
 * always holds `_` and never equals a keyword or a marker id; clashes
 * (`A.b.sh`, `A_b.sh`) get a numeric suffix.
 */
export function stateIds(files: string[]): Map<string, string> {
  const ids = new Map<string, string>();
  const used = new Set<string>();
  for (const file of files) {
    const base = file.replace(/[^A-Za-z0-9_]/g, '_');
    let id = base;
    for (let n = 2; used.has(id); n++) id = `${base}_${n}`;
    used.add(id);
    ids.set(file, id);
  }
  return ids;
}

/**
 * Boxes and arrows of a workflow: a start marker at the entry, one box per
 * state, an arrow per tag (a `<call>` adds a dotted `return` arrow to where
 * the caller continues, a `<fork>` a `next` arrow to where the parent does),
 * and `<result>` arrows into one result marker. Targets that do not resolve
 * or are built at run time get boxes of their own.
 */
export function diagramModel(graph: WorkflowGraph): DiagramModel {
  const ids = stateIds(graph.nodes.map((n) => n.file));
  const nodes: DiagramNode[] = graph.nodes.map((n) => {
    const locked = n.kind === 'markdown' && n.grant?.tools !== undefined;
    return {
      id: ids.get(n.file)!,
      label: locked ? `${LOCK}${n.file}` : n.file,
      kind: n.kind,
      file: n.file,
      ...(locked ? { locked } : {}),
    };
  });
  const extra = new Map<string, DiagramNode>();
  const links = new Map<string, DiagramLink>();
  const link = (from: string, to: string, kind: string) => {
    const dotted = DOTTED.has(kind);
    const key = `${from}>${to}>${dotted}`;
    const seen = links.get(key);
    if (!seen) links.set(key, { from, to, label: kind, dotted });
    else if (!seen.label.split(', ').includes(kind)) seen.label += `, ${kind}`;
  };
  const targets = (ref: StateRef): string[] => {
    if (ref.files.length > 0) return ref.files.map((f) => ids.get(f)!);
    const kind = ref.dynamic ? 'dynamic' : 'missing';
    const key = `${kind}:${ref.written}`;
    if (!extra.has(key)) {
      const label = ref.dynamic ? ref.written : `${ref.written} (missing)`;
      extra.set(key, { id: `${kind}_${extra.size + 1}`, label, kind });
    }
    return [extra.get(key)!.id];
  };
  const workflow = (ref: WorkflowRef): string => {
    const kind = ref.dynamic ? 'dynamic' : ref.problem !== undefined ? 'missing' : 'workflow';
    const key = `workflow:${ref.written}`;
    if (!extra.has(key)) {
      const label =
        kind === 'missing'
          ? `${ref.written} (missing)`
          : kind === 'workflow'
            ? `workflow ${ref.written}`
            : ref.written || 'any workflow';
      extra.set(key, { id: `${kind}_${extra.size + 1}`, label, kind });
    }
    return extra.get(key)!.id;
  };
  if (graph.entries.length > 0) nodes.unshift({ id: START_ID, label: 'start', kind: 'start' });
  for (const entry of graph.entries) link(START_ID, ids.get(entry)!, '');
  for (const node of graph.nodes) {
    const from = ids.get(node.file)!;
    for (const t of node.transitions) {
      const label = t.implicit && !t.inText ? `${t.tag} (implicit)` : t.tag;
      if (t.workflow) link(from, workflow(t.workflow), label);
      else for (const to of targets(t.target)) link(from, to, label);
      if (t.returnTo) for (const to of targets(t.returnTo)) link(from, to, 'return');
      if (t.next) for (const to of targets(t.next)) link(from, to, 'next');
      if (t.timeoutNext) for (const to of targets(t.timeoutNext)) link(from, to, 'timeout');
    }
    if (node.result) link(from, RESULT_ID, 'result');
  }
  nodes.push(...extra.values());
  if (graph.nodes.some((n) => n.result))
    nodes.push({ id: RESULT_ID, label: 'result', kind: 'result' });
  return { nodes, links: [...links.values()] };
}
