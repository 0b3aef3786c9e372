// Today's hand-written checks (before the schemas), kept for bench/schemas.ts as its baseline: the state file's
// (src/state/state-schema.ts as it was), and the queue's typeof checks (job-signing.ts, step-queue.ts, step-worker.ts).
import { ON_ASK_MODES, WORKTREE_MODES } from '../machines/types.js';

/**
 * The schema of a state file, checked whole when one is read: a state file
 * edited by hand (or by anything else) either has every field of the type
 * the runtime relies on, or is refused with the first field that is wrong.
 * Fields an older Raymond did not write are optional here.
 */

/** What a value must be, or for a nested object the whole message about its wrong field; undefined when it fits. */
type Check = (v: unknown) => string | { full: string } | undefined;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const string: Check = (v) => (typeof v === 'string' ? undefined : 'a string');
const number: Check = (v) => (typeof v === 'number' && Number.isFinite(v) ? undefined : 'a number');
const boolean: Check = (v) => (typeof v === 'boolean' ? undefined : 'true or false');
const nullable =
  (c: Check): Check =>
  (v) => {
    const wrong = v === null ? undefined : c(v);
    return typeof wrong === 'string' ? `${wrong} or null` : wrong;
  };
const oneOf =
  (values: readonly string[]): Check =>
  (v) =>
    typeof v === 'string' && values.includes(v) ? undefined : `one of ${values.join(', ')}`;
const recordOf =
  (c: Check, what: string): Check =>
  (v) =>
    isObject(v) && Object.values(v).every((x) => c(x) === undefined)
      ? undefined
      : `an object of ${what}`;

/** Field name to its check; a name ending in `?` may be absent. */
type Shape = Record<string, Check>;

/** The first field of `v` that does not match `shape`, as `path: what it must be`. */
function mismatch(v: unknown, shape: Shape, path: string): string | undefined {
  if (!isObject(v)) return `${path.replace(/\.$/, '') || 'the state'} must be an object`;
  for (const [key, check] of Object.entries(shape)) {
    const optional = key.endsWith('?');
    const name = optional ? key.slice(0, -1) : key;
    const value = v[name];
    if (value === undefined && optional) continue;
    const wrong = check(value);
    if (typeof wrong === 'object') return wrong.full;
    if (wrong !== undefined)
      return `${path}${name} is ${value === undefined ? 'missing' : JSON.stringify(value)?.slice(0, 40)}; it must be ${wrong}`;
  }
  return undefined;
}

/** A nested object, whose wrong field the message names (`options.max_parallel`). */
const object =
  (shape: Shape, path: string): Check =>
  (v) => {
    const wrong = mismatch(v, shape, path);
    return wrong === undefined ? undefined : { full: wrong };
  };

const FRAME: Shape = {
  state: string,
  session: nullable(string),
  'workflow?': (v) =>
    isObject(v) &&
    mismatch(v, { scope: nullable(string), cwd: string, depth: number }, '') === undefined
      ? undefined
      : 'a caller scope ({scope, cwd, depth})',
};

const ASK: Shape = {
  id: string,
  prompt: string,
  created_at: string,
  'timeout_at?': string,
  next: string,
  'timeout_next?': string,
  'files?': recordOf(string, 'strings'),
};

const WORKTREE: Shape = {
  name: string,
  repo: string,
  'path?': string,
  branch: string,
  base: string,
  'mode?': oneOf(WORKTREE_MODES),
  'commits?': number,
  'diffstat?': string,
  'dirty?': boolean,
  'removed?': boolean,
  'saved?': string,
  'pushed?': string,
};

const AGENT: Shape = {
  id: (v) => (typeof v === 'string' && v !== '' ? undefined : 'a non-empty string'),
  state: string,
  'session?': nullable(string),
  'branchFrom?': nullable(string),
  'next_session?': string,
  cwd: string,
  'attributes?': recordOf(string, 'strings'),
  'input?': nullable(string),
  status: oneOf(['active', 'terminated', 'failed', 'paused']),
  'result?': string,
  'error?': string,
  'resets_at?': number,
  'worktree?': (v) =>
    mismatch(v, WORKTREE, '') === undefined ? undefined : 'a worktree ({name, repo, branch, base})',
  'task_folder?': string,
  'task_number?': number,
  'scope?': string,
  'workflow_depth?': number,
  'ask?': (v) =>
    mismatch(v, ASK, '') === undefined ? undefined : 'an ask ({id, prompt, created_at, next})',
  'answered_ask?': string,
  'parent?': string,
  'joining?': (v) => (v === true ? undefined : 'true'),
  'joined?': (v) => (v === true ? undefined : 'true'),
  'cost_usd?': number,
  // Each frame is checked on its own, to name it.
  stack: (v) => (Array.isArray(v) ? undefined : 'a list of frames'),
};

const OPTIONS: Shape = {
  timeout_seconds: number,
  max_parallel: number,
  budget_usd: number,
  'model?': nullable(string),
  'effort?': nullable(string),
  'dangerously_skip_permissions?': boolean,
  'worktrees?': oneOf(WORKTREE_MODES),
  'task_folder_pattern?': string,
  'name?': string,
  'on_ask?': oneOf(ON_ASK_MODES),
  'environment?': recordOf(string, 'strings'),
  'queue?': string,
  'push_remote?': string,
};

const STATE: Shape = {
  version: (v) => (v === 1 ? undefined : '1'),
  workflow_id: string,
  status: oneOf(['running', 'paused', 'completed', 'failed', 'budget_exceeded', 'asking']),
  scope: object(
    {
      kind: oneOf(['file', 'dir', 'zip', 'yaml']),
      path: string,
      entry: string,
      'fingerprints?': recordOf(string, 'strings'),
    },
    'scope.',
  ),
  started_at: string,
  updated_at: string,
  options: object(OPTIONS, 'options.'),
  total_cost_usd: number,
  'fork_counters?': recordOf(number, 'numbers'),
  'session_costs?': recordOf(number, 'numbers'),
  'results?': recordOf(string, 'strings'),
  'error?': string,
  'journal_seq?': number,
};

/**
 * What is wrong with a parsed state file, in one line naming the field
 * (`agents[2].stack[0].state is 7; it must be a string`), or undefined when
 * it has the shape of a WorkflowState.
 */
export function handStateProblem(v: unknown): string | undefined {
  const top = mismatch(v, STATE, '');
  if (top !== undefined) return top;
  const agents = (v as Record<string, unknown>).agents;
  if (!Array.isArray(agents)) return 'agents must be a list';
  for (let i = 0; i < agents.length; i++) {
    const agent: unknown = agents[i];
    const wrong = mismatch(agent, AGENT, `agents[${i}].`);
    if (wrong !== undefined) return wrong;
    const stack = (agent as { stack: unknown[] }).stack;
    for (let j = 0; j < stack.length; j++) {
      const frame = mismatch(stack[j], FRAME, `agents[${i}].stack[${j}].`);
      if (frame !== undefined) return frame;
    }
  }
  return undefined;
}

/** The queue's checks of a step job's payload as they were: the signed envelope, then the job's own fields. */
export function handStepJob(data: unknown): boolean {
  const signed = data as { payload?: unknown; sig?: unknown } | null;
  if (!signed || typeof signed.payload !== 'string' || typeof signed.sig !== 'string') return false;
  const job = JSON.parse(signed.payload) as {
    v?: unknown;
    id?: unknown;
    nonce?: unknown;
    expires?: unknown;
  };
  return (
    job.v === 2 &&
    typeof job.id === 'string' &&
    typeof job.nonce === 'string' &&
    typeof job.expires === 'number'
  );
}
