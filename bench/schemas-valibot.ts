import * as v from 'valibot';

/**
 * The same edges as src/state/state-schema.ts, src/executors/spawner-schemas.ts
 * and src/queue/queue-schemas.ts, written with Valibot: bench/schemas.ts
 * measures both libraries on the same data.
 */
const str = v.string();
const num = v.number();
const opt = v.optional;
const nullable = <S extends v.GenericSchema>(s: S) => v.nullable(s);
const strings = v.record(str, str);
const numbers = v.record(str, num);
const WORKTREE_MODES = v.picklist(['keep-ignored', 'clean', 'off']);

const FRAME = v.object({
  state: str,
  session: nullable(str),
  workflow: opt(v.object({ scope: nullable(str), cwd: str, depth: num })),
});
const ASK = v.object({
  id: str,
  prompt: str,
  created_at: str,
  timeout_at: opt(str),
  next: str,
  timeout_next: opt(str),
  files: opt(strings),
});
const WORKTREE = v.object({
  name: str,
  repo: str,
  path: opt(str),
  branch: str,
  base: str,
  mode: opt(WORKTREE_MODES),
  commits: opt(num),
  diffstat: opt(str),
  dirty: opt(v.boolean()),
  removed: opt(v.boolean()),
  saved: opt(str),
  pushed: opt(str),
});
const AGENT = v.object({
  id: v.pipe(str, v.minLength(1)),
  state: str,
  session: opt(nullable(str)),
  branchFrom: opt(nullable(str)),
  next_session: opt(str),
  cwd: str,
  attributes: opt(strings),
  input: opt(nullable(str)),
  status: v.picklist(['active', 'terminated', 'failed', 'paused']),
  result: opt(str),
  error: opt(str),
  resets_at: opt(num),
  worktree: opt(WORKTREE),
  task_folder: opt(str),
  task_number: opt(num),
  scope: opt(str),
  workflow_depth: opt(num),
  ask: opt(ASK),
  answered_ask: opt(str),
  parent: opt(str),
  joining: opt(v.literal(true)),
  joined: opt(v.literal(true)),
  cost_usd: opt(num),
  stack: v.array(FRAME),
});
const OPTIONS = v.object({
  timeout_seconds: num,
  max_parallel: num,
  budget_usd: num,
  model: opt(nullable(str)),
  effort: opt(nullable(str)),
  dangerously_skip_permissions: opt(v.boolean()),
  worktrees: opt(WORKTREE_MODES),
  task_folder_pattern: opt(str),
  name: opt(str),
  on_ask: opt(v.picklist(['pause', 'reject', 'prompt'])),
  environment: opt(strings),
  queue: opt(str),
  push_remote: opt(str),
});

/** The state file. */
export const STATE_FILE = v.looseObject({
  version: v.literal(1),
  workflow_id: str,
  status: v.picklist(['running', 'paused', 'completed', 'failed', 'budget_exceeded', 'asking']),
  scope: v.object({
    kind: v.picklist(['file', 'dir', 'zip', 'yaml']),
    path: str,
    entry: str,
    fingerprints: opt(strings),
  }),
  started_at: str,
  updated_at: str,
  options: OPTIONS,
  total_cost_usd: num,
  fork_counters: opt(numbers),
  session_costs: opt(numbers),
  results: opt(strings),
  error: opt(str),
  journal_seq: opt(num),
  agents: v.array(AGENT),
});

/** The spawner's requests and replies. */
export const SPAWNER_REQUEST = v.variant('type', [
  v.object({
    type: v.literal('run'),
    id: num,
    file: str,
    args: v.array(str),
    cwd: str,
    env: v.record(str, nullable(str)),
    inactivityMs: num,
    stream: v.boolean(),
    maxOutputBytes: opt(num),
    stderrBytes: opt(num),
  }),
  v.object({ type: v.literal('kill'), id: num, signal: str }),
]);
export const SPAWNER_REPLY = v.variant('type', [
  v.object({ type: v.literal('ready'), pid: num }),
  v.object({ type: v.literal('started'), id: num, pid: num }),
  v.object({
    type: v.literal('chunk'),
    id: num,
    stream: v.picklist(['stdout', 'stderr']),
    text: str,
  }),
  v.object({ type: v.literal('output'), id: num, text: str }),
  v.object({
    type: v.literal('exit'),
    id: num,
    exitCode: nullable(num),
    signal: nullable(str),
    stdout: str,
    stderrTail: str,
    timedOut: v.boolean(),
    spawnError: opt(str),
    droppedBytes: num,
    leftRunning: v.array(num),
  }),
]);

/** A signed job and the step job's envelope. */
export const SIGNED_JOB = v.object({ payload: str, sig: str });
export const STEP_JOB = v.looseObject({
  v: v.literal(2),
  kind: v.picklist(['script', 'markdown', 'worktree.finish']),
  run: str,
  id: str,
  nonce: str,
  expires: num,
  root: str,
  agent: v.looseObject({ id: str, state: str, cwd: str }),
  file: str,
  where: str,
  timeoutMs: num,
  env: strings,
  pushRemote: str,
  queuedAt: num,
});
