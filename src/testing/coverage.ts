import type { RunEvent } from '../../machines/run-events.js';
import type { WorkflowGraph } from '../analysis/workflow-graph.js';
import { stem } from '../analysis/workflow-node.js';
import {
  edgeKey,
  graphEdges,
  sortEdges,
  type CoverageEdge,
  type GraphEdge,
} from './coverage-edges.js';
import { exhaustive } from '../../machines/exhaustive.js';

/** What tests exercised of one workflow: its states that ran and its edges that were taken. */
export interface Coverage {
  /** The workflow's short name. */
  workflow: string;
  /** State files, sorted. */
  states: { taken: string[]; never: string[] };
  /** Edges, sorted; `taken` also holds edges the runs took that the graph does not show (a script's computed tag). */
  edges: { taken: CoverageEdge[]; never: CoverageEdge[] };
}

type StepDone = Extract<RunEvent, { type: 'step.done' }>;

/** What one agent's steps leave pending: the callers it will return to. */
interface Frame {
  from: string | null;
  returnTo: string;
}

/**
 * The states and edges of `graph` that the runs took. Each run is one
 * run's events in order. Only steps in the workflow's own scope count (a
 * callee workflow's states are not this graph's). A fork counts once per
 * edge, however many workers it made; a join counts when the parent got its
 * workers back; an ask when it was answered, or its `timeout` edge when its
 * time ran out.
 */
export function coverage(graph: WorkflowGraph, runs: readonly (readonly RunEvent[])[]): Coverage {
  const edges = graphEdges(graph);
  const byKey = new Map(edges.map((e) => [edgeKey(e), e]));
  const files = new Set(graph.nodes.map((n) => n.file));
  const fileOf = (name: string): string => {
    if (files.has(name)) return name;
    const found = graph.nodes.filter((n) => stem(n.file) === name);
    return found.length === 1 ? found[0]!.file : name;
  };
  const ran = new Set<string>();
  const taken = new Map<string, CoverageEdge>();
  const mark = (from: string | null, kind: string, to: string | null) => {
    if (from === null) return;
    const edge = { from, kind, to: to === null || kind.endsWith('-workflow') ? to : fileOf(to) };
    const exact = byKey.get(edgeKey(edge));
    const dynamic = edges.find((e) => e.dynamic && e.from === from && e.kind === kind);
    const hit: CoverageEdge = exact ?? dynamic ?? edge;
    taken.set(edgeKey(hit), hit);
  };
  const has = (from: string, kind: string, to: string) =>
    byKey.has(edgeKey({ from, kind, to: fileOf(to) }));
  for (const events of runs) walk(events, { fileOf, ran, mark, has });
  const counted = (e: GraphEdge) => taken.has(edgeKey(e));
  const stateFiles = [...files].sort();
  return {
    workflow: graph.name,
    states: {
      taken: stateFiles.filter((f) => ran.has(f)),
      never: stateFiles.filter((f) => !ran.has(f)),
    },
    edges: {
      taken: sortEdges(taken.values()).map(({ from, kind, to }) => ({ from, kind, to })),
      never: edges.filter((e) => !counted(e)).map(({ from, kind, to }) => ({ from, kind, to })),
    },
  };
}

/** An ask waiting for its answer: where it was asked, and where the answer and a timeout lead. */
interface Ask {
  from: string | null;
  next: string;
  timeoutNext: string | undefined;
}

interface Marks {
  fileOf: (name: string) => string;
  ran: Set<string>;
  mark: (from: string | null, kind: string, to: string | null) => void;
  has: (from: string, kind: string, to: string) => boolean;
}

/** Follows one run's events, marking the states that ran and the edges taken. */
function walk(events: readonly RunEvent[], m: Marks): void {
  // An agent in another workflow's scope (a callee) runs states that are not this graph's.
  const scopes = new Map<string, string | undefined>();
  const stacks = new Map<string, Frame[]>();
  const joins = new Map<string, { from: string | null; next: string }>();
  const asks = new Map<string, Ask>();
  const own = (agentId: string, state: string) =>
    scopes.get(agentId) === undefined ? m.fileOf(state) : null;
  const at = new Map<string, string>();
  for (const e of events) {
    switch (e.type) {
      case 'step.started':
        scopes.set(e.agentId, e.scope);
        at.set(e.agentId, e.state);
        if (e.scope === undefined) m.ran.add(m.fileOf(e.state));
        break;
      case 'ask.created': {
        // Also noted here, as an answer may come before the step that asked reports it is done.
        const state = at.get(e.ask.agent_id);
        if (state === undefined) break;
        const from = own(e.ask.agent_id, state);
        asks.set(e.ask.id, { from, next: e.ask.next, timeoutNext: e.ask.timeout_next });
        break;
      }
      case 'step.done':
        stepDone(e, own(e.agentId, e.from), stacks, joins, asks, m);
        break;
      case 'agent.joined': {
        const join = joins.get(e.agentId);
        joins.delete(e.agentId);
        if (join) continueAt(join.from, ['join', 'next'], join.next, m);
        break;
      }
      case 'ask.answered': {
        const ask = asks.get(e.askId);
        asks.delete(e.askId);
        if (!ask) break;
        if (!e.expired) m.mark(ask.from, 'ask', ask.next);
        else if (ask.timeoutNext !== undefined) m.mark(ask.from, 'timeout', ask.timeoutNext);
        break;
      }
      default:
        break;
    }
  }
}

/**
 * Marks where a forking parent went on. The decision does not say whether a
 * fork's `next` or a `<goto>`/`<join>` beside it named the state, so every
 * such edge of the graph counts; without any, the first kind does.
 */
function continueAt(from: string | null, kinds: string[], next: string, m: Marks): void {
  if (from === null) return;
  const present = kinds.filter((k) => m.has(from, k, next));
  for (const k of present.length > 0 ? present : kinds.slice(0, 1)) m.mark(from, k, next);
}

function stepDone(
  e: StepDone,
  from: string | null,
  stacks: Map<string, Frame[]>,
  joins: Map<string, { from: string | null; next: string }>,
  asks: Map<string, Ask>,
  m: Marks,
): void {
  const d = e.decision;
  const stack = stacks.get(e.agentId) ?? [];
  stacks.set(e.agentId, stack);
  switch (d.kind) {
    case 'goto':
      m.mark(from, 'goto', d.target);
      break;
    case 'reset':
      if (d.workflow) m.mark(from, 'reset-workflow', d.workflow.spec);
      else m.mark(from, 'reset', d.target);
      break;
    case 'call':
    case 'function':
      if (d.workflow) m.mark(from, `${d.kind}-workflow`, d.workflow.spec);
      else m.mark(from, d.kind, d.target);
      stack.push({ from, returnTo: d.returnTo });
      break;
    case 'fork':
      for (const w of d.workers) {
        if (w.workflow) m.mark(from, 'fork-workflow', w.workflow.spec);
        else m.mark(from, 'fork', w.target);
      }
      if (d.join) joins.set(e.agentId, { from, next: d.next });
      else continueAt(from, ['next', 'goto'], d.next, m);
      break;
    case 'result':
      m.mark(from, 'result', null);
      // The callee's result takes its caller to the call's `return` state.
      if (e.to !== null && stack.length > e.depth) {
        const frame = stack[e.depth]!;
        m.mark(frame.from, 'return', frame.returnTo);
      }
      break;
    case 'ask':
      asks.set(d.ask.id, { from, next: d.next, timeoutNext: d.timeoutNext });
      break;
    default:
      exhaustive(d);
  }
  // The step's depth is the truth: a reset clears the stack, a result pops its frame.
  stack.length = Math.min(stack.length, e.depth);
}
