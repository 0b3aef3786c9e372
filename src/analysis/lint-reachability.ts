import type { Problem } from './lint-checks-table.js';
import type { WorkflowGraph } from './workflow-graph.js';
import type { StateRef, WorkflowNode } from './workflow-node.js';
import { TAG_TRAITS } from '../language/tag-scanner.js';

/**
 * `everything`: every state an agent or its workers may run.
 * `frame`: the states one return frame runs, so a callee's `<result>` reaches
 * its caller (a `<call>` continues at its return state, a `<fork>` at `next`).
 */
type Walk = 'everything' | 'frame';

interface Reach {
  seen: Set<string>;
  /** A dynamic target or an unreadable state was met: it may lead to any state. */
  open: boolean;
}

/** The checks that follow transitions: unreachable states, dead ends, callees that never return, forks never joined. */
export function reachabilityChecks(graph: WorkflowGraph): Problem[] {
  const byFile = new Map(graph.nodes.map((n) => [n.file, n]));
  const out: Problem[] = [];
  const fromEntry =
    graph.entries.length > 0 ? reach(byFile, graph.entries, 'everything') : undefined;
  // Reachability is only claimed when every transition on the way is known.
  const reachable = fromEntry && !fromEntry.open ? fromEntry.seen : undefined;
  for (const node of graph.nodes) {
    if (reachable && !reachable.has(node.file)) {
      out.push({
        check: 'unreachable-state',
        file: node.file,
        message: `no transition leads here from the entry (${graph.entries.join(', ')})`,
      });
      continue;
    }
    if (deadEnd(node)) {
      const message =
        node.kind === 'markdown'
          ? 'the prompt shows no transition tag and there are no allowed_transitions: the reply cannot say where to go'
          : 'prints no transition tag: a run that gets here fails';
      out.push({ check: 'no-way-out', file: node.file, message });
    }
  }
  for (const [callee, callers] of callersByCallee(graph)) {
    const frame = reach(byFile, [callee], 'frame');
    if (frame.open || [...frame.seen].some((f) => byFile.get(f)?.result)) continue;
    out.push({
      check: 'callee-without-result',
      file: callee,
      message: `${callers.join(', ')} enters here, but no <result> can be reached from it: the caller never resumes`,
    });
  }
  out.push(...unjoinedForks(graph, byFile));
  return out;
}

/**
 * In a workflow that joins somewhere, a state that forks from which the
 * parent can never reach a `<join>`: its workers' results go nowhere.
 * Workflows without a join are fire-and-forget by design and not warned.
 */
function unjoinedForks(graph: WorkflowGraph, byFile: Map<string, WorkflowNode>): Problem[] {
  const joins = (n: WorkflowNode | undefined) =>
    n?.transitions.some((t) => t.tag === 'join') ?? false;
  if (!graph.nodes.some(joins)) return [];
  const out: Problem[] = [];
  for (const node of graph.nodes) {
    const forks = node.transitions.filter((t) => t.tag === 'fork' || t.tag === 'fork-workflow');
    if (forks.length === 0 || joins(node)) continue;
    const parent = reach(byFile, [node.file], 'frame');
    if (parent.open || [...parent.seen].some((f) => joins(byFile.get(f)))) continue;
    const first = forks[0]!;
    out.push({
      check: 'unjoined-fork',
      file: node.file,
      message: `<${first.tag}>${first.target.written}</${first.tag}> makes workers that no <join> gathers: the parent never reaches a <join>, so their results go nowhere (add <join>NEXT</join> where the parent should wait for them)`,
    });
  }
  return out;
}

function deadEnd(node: WorkflowNode): boolean {
  const unreadable =
    node.frontmatterError !== undefined || node.tagErrors.length > 0 || node.misspelt.length > 0;
  return !unreadable && !node.result && node.transitions.length === 0;
}

function callersByCallee(graph: WorkflowGraph): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const node of graph.nodes) {
    for (const t of node.transitions) {
      if (t.tag !== 'call' && t.tag !== 'function') continue;
      for (const callee of t.target.files) {
        const callers = out.get(callee) ?? [];
        const caller = `<${t.tag}> from ${node.file}`;
        if (!callers.includes(caller)) callers.push(caller);
        out.set(callee, callers);
      }
    }
  }
  return out;
}

function reach(byFile: Map<string, WorkflowNode>, starts: string[], walk: Walk): Reach {
  const out: Reach = { seen: new Set(starts), open: false };
  const queue = [...starts];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const node = byFile.get(file);
    if (!node) continue;
    if (
      node.frontmatterError !== undefined ||
      node.tagErrors.length > 0 ||
      node.misspelt.length > 0
    )
      out.open = true;
    for (const ref of successors(node, walk)) {
      if (ref.dynamic) out.open = true;
      for (const next of ref.files) {
        if (out.seen.has(next)) continue;
        out.seen.add(next);
        queue.push(next);
      }
    }
  }
  return out;
}

function successors(node: WorkflowNode, walk: Walk): StateRef[] {
  return node.transitions.flatMap((t) => {
    // A callee or a forked worker runs in another frame; this frame goes on at `return` or `next`.
    const leavesFrame = TAG_TRAITS[t.tag].leavesFrame;
    const refs =
      walk === 'frame' && leavesFrame
        ? [t.returnTo, t.next]
        : [t.target, t.returnTo, t.next, t.timeoutNext];
    return refs.filter((r): r is StateRef => r !== undefined);
  });
}
