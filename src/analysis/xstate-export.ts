import { stateIds } from './diagram-model.js';
import type { WorkflowGraph } from './workflow-graph.js';
import type { StateRef } from './workflow-node.js';

/** One transition of an XState machine config. */
export interface XStateTransition {
  target: string;
}

/** One state node of an XState machine config. */
export interface XStateNode {
  description: string;
  type?: 'final';
  meta?: { file: string; kind: 'markdown' | 'script'; entry: boolean };
  on?: Record<string, XStateTransition | XStateTransition[]>;
}

/** An XState machine config as plain JSON, for `createMachine` or Stately's import. */
export interface XStateConfig {
  id: string;
  description: string;
  initial: string;
  states: Record<string, XStateNode>;
}

/** Key of the final state that every `<result>` leads to. */
const RESULT_STATE = 'result';

/**
 * A workflow as an XState machine config: one state per state file (keyed by
 * the same ids as the diagrams, since XState reads `.` in a target as a
 * path), events named after the tags (`goto`, `reset`, `call`, `function`,
 * `fork`, `join`), `return` to where a caller continues, `next` to where a forking
 * parent does, and `result` into a final state. Targets that do not resolve
 * or are built at run time have no state to go to and are left out.
 */
export function xstateMachine(graph: WorkflowGraph): XStateConfig {
  const ids = stateIds(graph.nodes.map((n) => n.file));
  const states: Record<string, XStateNode> = {};
  for (const node of graph.nodes) {
    const events = new Map<string, string[]>();
    const on = (event: string, ref: StateRef | undefined) => {
      for (const file of ref?.files ?? []) {
        const targets = events.get(event) ?? [];
        if (!targets.includes(ids.get(file)!)) targets.push(ids.get(file)!);
        events.set(event, targets);
      }
    };
    for (const t of node.transitions) {
      on(t.tag, t.target);
      on('return', t.returnTo);
      on('next', t.next);
      on('timeout', t.timeoutNext);
    }
    if (node.result) events.set('result', [RESULT_STATE]);
    const state: XStateNode = {
      description: `${node.file}: ${node.kind === 'markdown' ? 'markdown prompt' : 'script'}`,
      meta: { file: node.file, kind: node.kind, entry: node.entry },
    };
    if (events.size > 0) {
      state.on = Object.fromEntries(
        [...events].map(([event, targets]) => {
          const list = targets.map((target) => ({ target }));
          return [event, list.length === 1 ? list[0]! : list];
        }),
      );
    }
    states[ids.get(node.file)!] = state;
  }
  if (graph.nodes.some((n) => n.result)) {
    states[RESULT_STATE] = {
      type: 'final',
      description: '<result>: the payload goes back to the caller, or the agent ends',
    };
  }
  const entry = graph.entries[0] ?? graph.nodes[0]!.file;
  return {
    id: graph.name,
    description: `Raymond workflow ${graph.path}: events are transition tags`,
    initial: ids.get(entry)!,
    states,
  };
}
