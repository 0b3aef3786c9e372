import { stem } from '../analysis/workflow-node.js';
import type { CoverageEdge } from './coverage-edges.js';
import type { Coverage } from './coverage.js';

/**
 * How `raymond test --coverage` shows coverage: text for people, an object
 * for `--json`. States are written as tests write them: the stem, or the
 * file name where two states share a stem.
 */

/** Names states by stem unless two of the workflow's states share it. */
function namer(c: Coverage): (file: string) => string {
  const all = [...c.states.taken, ...c.states.never];
  const counts = new Map<string, number>();
  for (const f of all) counts.set(stem(f), (counts.get(stem(f)) ?? 0) + 1);
  const files = new Set(all);
  // A workflow specifier or a name built at run time is shown as written.
  return (name) => (files.has(name) && counts.get(stem(name)) === 1 ? stem(name) : name);
}

/** An edge as one line shows it: `REVIEW -goto-> REVISE`, `REVIEW -result-> (result)`. */
export function edgeText(e: CoverageEdge, name: (file: string) => string): string {
  return `${name(e.from)} -${e.kind}-> ${e.to === null ? '(result)' : name(e.to)}`;
}

/**
 * `coverage review-loop: 3/3 states, 4/5 edges`, the states that ran, a
 * line per edge taken, then a line per state that never ran and per edge
 * never taken, in the workflow's sorted order.
 */
export function formatCoverage(c: Coverage): string {
  const name = namer(c);
  const states = c.states.taken.length + c.states.never.length;
  const edges = c.edges.taken.length + c.edges.never.length;
  const lines = [
    `coverage ${c.workflow}: ${c.states.taken.length}/${states} states, ${c.edges.taken.length}/${edges} edges`,
    ...(c.states.taken.length > 0 ? [`  ran: ${c.states.taken.map(name).join(', ')}`] : []),
    ...c.edges.taken.map((e) => `  taken: ${edgeText(e, name)}`),
    ...c.states.never.map((f) => `  never ran: ${name(f)}`),
    ...c.edges.never.map((e) => `  never taken: ${edgeText(e, name)}`),
  ];
  return lines.join('\n');
}

/** Coverage as `--json` prints it: counts, and each state and edge by the names the text uses. */
export interface CoverageJson {
  workflow: string;
  states: { total: number; taken: string[]; never: string[] };
  edges: {
    total: number;
    taken: Array<{ from: string; kind: string; to: string | null }>;
    never: Array<{ from: string; kind: string; to: string | null }>;
  };
}

/** The JSON form of a coverage: the same names as the text, and the totals. */
export function coverageJson(c: Coverage): CoverageJson {
  const name = namer(c);
  const edge = (e: CoverageEdge) => ({
    from: name(e.from),
    kind: e.kind,
    to: e.to === null ? null : name(e.to),
  });
  return {
    workflow: c.workflow,
    states: {
      total: c.states.taken.length + c.states.never.length,
      taken: c.states.taken.map(name),
      never: c.states.never.map(name),
    },
    edges: {
      total: c.edges.taken.length + c.edges.never.length,
      taken: c.edges.taken.map(edge),
      never: c.edges.never.map(edge),
    },
  };
}
