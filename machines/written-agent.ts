import type { AgentFields, StoredAgent, WorkflowState } from './types.js';

/*
 * How an agent is written to the state file and the journal, and read back.
 * At 100,000 forked workers the agents are the whole file: each field at its
 * default, and each thing a terminated agent will never use again, costs
 * that many times over, in bytes written and in the time to write them.
 */

type Defaulted = 'session' | 'branchFrom' | 'attributes' | 'input';

/** An agent's fields as written: those at their default left out (see compactAgent). */
export type Compact<A extends AgentFields> = Omit<A, Defaulted> & Partial<Pick<A, Defaulted>>;

/** An agent of the state file as written. */
export type WrittenAgent = Compact<StoredAgent>;

/**
 * The agent as written. Left out: `session`, `branchFrom` and `input` when
 * null, `attributes` when empty; and for a terminated agent its reserved
 * `next_session` (it starts no turn again), its `result` when `results`
 * holds the same, and its task folder when it is its first, default one
 * (`defaultFolder`). expandAgent puts them back, the folder when it is
 * given the default one (readStateFile gives it the run's project's).
 */
export function compactAgent<A extends AgentFields>(
  a: A,
  results: Readonly<Record<string, string>>,
  defaultFolder?: (id: string) => string,
): Compact<A> {
  const {
    session,
    branchFrom,
    attributes,
    input,
    next_session,
    result,
    task_folder,
    task_number,
    ...out
  } = a as AgentFields;
  const w = out as Compact<A>;
  if (session !== null && session !== undefined) w.session = session;
  if (branchFrom !== null && branchFrom !== undefined) w.branchFrom = branchFrom;
  if (input !== null && input !== undefined) w.input = input;
  if (attributes !== undefined && Object.keys(attributes).length > 0) w.attributes = attributes;
  const ended = a.status === 'terminated';
  if (next_session !== undefined && !ended) w.next_session = next_session;
  if (result !== undefined && !(ended && results[a.id] === result)) w.result = result;
  // Only an ended agent's folder may be left out: the default is not worked out for the others.
  const ownFirst = ended && (task_number ?? 1) === 1 && task_folder === defaultFolder?.(a.id);
  if (task_folder !== undefined && !ownFirst) {
    w.task_folder = task_folder;
    if (task_number !== undefined) w.task_number = task_number;
  }
  return w;
}

/**
 * An agent as read back: its defaults, a terminated agent's result from
 * `results`, and, given `defaultFolder`, the default task folder of an agent
 * whose folder was left out (or that is older than task folders).
 */
export function expandAgent(
  a: WrittenAgent,
  results: Readonly<Record<string, string>>,
  defaultFolder?: (id: string) => string,
): StoredAgent {
  const out: StoredAgent = {
    ...a,
    session: a.session ?? null,
    branchFrom: a.branchFrom ?? null,
    attributes: a.attributes ?? {},
    input: a.input ?? null,
  };
  if (out.result === undefined && out.status === 'terminated' && results[a.id] !== undefined)
    out.result = results[a.id];
  if (out.task_folder === undefined && defaultFolder) out.task_folder = defaultFolder(a.id);
  return out;
}

/** A state as written: its agents compacted (snapshot and journal folded, or not). */
export type WrittenState = Omit<WorkflowState, 'agents'> & { agents: WrittenAgent[] };

/** A whole state as read back (snapshot and journal folded): every agent expanded. */
export function expandState(
  state: WrittenState,
  defaultFolder?: (id: string) => string,
): WorkflowState {
  return {
    ...state,
    agents: state.agents.map((a) => expandAgent(a, state.results, defaultFolder)),
  };
}
