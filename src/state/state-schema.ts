import { Type as T, type TSchema } from '@sinclair/typebox';
import { ON_ASK_MODES, WORKTREE_MODES } from '../../machines/types.js';
import { checked } from '../schema-problem.js';

/**
 * The schema of a state file, checked whole when one is read: a state file
 * edited by hand (or by anything else) either has every field of the type
 * the runtime relies on, or is refused with the first field that is wrong.
 * Fields an older Raymond did not write are optional here; fields it does
 * not know are kept as they are.
 */

const oneOf = (values: readonly string[]) => T.Union(values.map((v) => T.Literal(v)));
const nullable = <S extends TSchema>(s: S) => T.Union([s, T.Null()]);
const recordOf = <S extends TSchema>(s: S, what: string) =>
  T.Record(T.String(), s, { must: `an object of ${what}` });
const strings = () => recordOf(T.String(), 'strings');
const numbers = () => recordOf(T.Number(), 'numbers');
const opt = T.Optional;

const FRAME = T.Object({
  state: T.String(),
  session: nullable(T.String()),
  workflow: opt(
    T.Object(
      { scope: nullable(T.String()), cwd: T.String(), depth: T.Number() },
      { opaque: true, must: 'a caller scope ({scope, cwd, depth})' },
    ),
  ),
});

/** The cost gate's question (machines/decision.ts GateAsk): a fork's kept decision is checked as the step made it. */
const GATE = T.Object(
  {
    kind: oneOf(['state', 'fork']),
    where: T.String(),
    forecast_usd: T.Number(),
    spent_usd: T.Number(),
    amount_usd: T.Number(),
    workers: opt(T.Number()),
    decision: opt(
      T.Object(
        {
          kind: T.Literal('fork'),
          next: T.String(),
          workers: T.Array(T.Object({ id: T.String(), target: T.String() })),
        },
        { opaque: true, must: 'a resolved <fork> ({kind, next, workers})' },
      ),
    ),
    fresh: opt(T.Array(nullable(T.String()))),
  },
  { opaque: true, must: 'a cost gate ({kind, where, forecast_usd, spent_usd, amount_usd})' },
);

const ASK = T.Object(
  {
    id: T.String(),
    prompt: T.String(),
    created_at: T.String(),
    timeout_at: opt(T.String()),
    next: T.String(),
    timeout_next: opt(T.String()),
    files: opt(strings()),
    gate: opt(GATE),
  },
  { opaque: true, must: 'an ask ({id, prompt, created_at, next})' },
);

const WORKTREE = T.Object(
  {
    name: T.String(),
    repo: T.String(),
    path: opt(T.String()),
    branch: T.String(),
    base: T.String(),
    mode: opt(oneOf(WORKTREE_MODES)),
    commits: opt(T.Number()),
    diffstat: opt(T.String()),
    dirty: opt(T.Boolean()),
    removed: opt(T.Boolean()),
    saved: opt(T.String()),
    pushed: opt(T.String()),
    from: opt(T.String()),
    from_tree: opt(T.String()),
  },
  { opaque: true, must: 'a worktree ({name, repo, branch, base})' },
);

const AGENT = T.Object({
  id: T.String({ minLength: 1 }),
  state: T.String(),
  session: opt(nullable(T.String())),
  branchFrom: opt(nullable(T.String())),
  next_session: opt(T.String()),
  cwd: T.String(),
  attributes: opt(strings()),
  input: opt(nullable(T.String())),
  status: oneOf(['active', 'terminated', 'failed', 'paused']),
  result: opt(T.String()),
  error: opt(T.String()),
  resets_at: opt(T.Number()),
  worktree: opt(WORKTREE),
  task_folder: opt(T.String()),
  task_number: opt(T.Number()),
  scope: opt(T.String()),
  workflow_depth: opt(T.Number()),
  steps: opt(T.Integer({ minimum: 0 })),
  ask: opt(ASK),
  answered_ask: opt(T.String()),
  parent: opt(T.String()),
  joining: opt(T.Literal(true)),
  joined: opt(T.Literal(true)),
  cost_usd: opt(T.Number()),
  budgets: opt(T.Array(T.Object({ branch: T.String(), usd: T.Number() }))),
  // Each frame is checked on its own, to name it.
  stack: T.Array(FRAME, { must: 'a list of frames' }),
});

const OPTIONS = T.Object({
  timeout_seconds: T.Number(),
  max_parallel: T.Number(),
  budget_usd: T.Number(),
  budget_hard: opt(T.Boolean()),
  model: opt(nullable(T.String())),
  fallback_models: opt(T.Array(T.String())),
  effort: opt(nullable(T.String())),
  dangerously_skip_permissions: opt(T.Boolean()),
  worktrees: opt(oneOf(WORKTREE_MODES)),
  task_folder_pattern: opt(T.String()),
  name: opt(T.String()),
  on_ask: opt(oneOf(ON_ASK_MODES)),
  environment: opt(strings()),
  queue: opt(T.String()),
  push_remote: opt(T.String()),
  confirm_over_usd: opt(T.Number()),
  max_agents: opt(T.Number()),
  budget_per_agent_usd: opt(T.Number()),
});

/** Each backend's account width as the run last set it (`--status` shows them). */
const ACCOUNT_WIDTHS = T.Record(
  T.String(),
  T.Object({
    width: T.Number(),
    was: T.Number(),
    ceiling: T.Number(),
    why: oneOf(['rate-limited', 'overloaded', 'recovering', 'usage-limit', 'paced']),
    until: opt(T.String()),
    perMinute: opt(T.Number()),
    told: opt(T.Boolean()),
    at: T.String(),
  }),
);

/** A state file (`<id>.json`) as Raymond writes it; its JSON Schema as well. */
export const STATE_FILE = T.Object({
  version: T.Literal(1),
  workflow_id: T.String(),
  status: oneOf(['running', 'paused', 'completed', 'failed', 'budget_exceeded', 'asking']),
  scope: T.Object({
    kind: oneOf(['file', 'dir', 'zip', 'yaml']),
    path: T.String(),
    entry: T.String(),
    fingerprints: opt(strings()),
  }),
  started_at: T.String(),
  updated_at: T.String(),
  options: OPTIONS,
  total_cost_usd: T.Number(),
  fork_counters: opt(numbers()),
  session_costs: opt(numbers()),
  results: opt(strings()),
  error: opt(T.String()),
  journal_seq: opt(T.Number()),
  account_widths: opt(ACCOUNT_WIDTHS),
  agents: T.Array(AGENT),
});

/** One line of a run's journal (src/state/journal.ts); its agents are checked with the folded state. */
const JOURNAL_LINE = T.Object({
  seq: T.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }),
  meta: T.Object({
    status: T.String(),
    total_cost_usd: T.Number(),
    updated_at: T.String(),
    options: opt(T.Object({})),
    error: opt(nullable(T.String())),
    account_widths: opt(ACCOUNT_WIDTHS),
  }),
  agents: opt(T.Array(T.Object({ id: T.String() }))),
  results: opt(strings()),
  fork_counters: opt(numbers()),
  session_costs: opt(numbers()),
});

const stateFile = checked(STATE_FILE);

/** Enough of a state file to tell one from other JSON, before its version and its shape are checked. */
export const stateFileLike = checked(
  T.Object({ workflow_id: T.String(), agents: T.Array(T.Unknown()), version: opt(T.Unknown()) }),
);
/** The compiled check of a journal line. */
export const journalRecord = checked(JOURNAL_LINE);

/**
 * What is wrong with a parsed state file, in one line naming the field
 * (`agents[2].stack[0].state is 7; it must be a string`), or undefined when
 * it has the shape of a WorkflowState.
 */
export function stateFileProblem(v: unknown): string | undefined {
  return stateFile.problem(v, 'the state');
}
