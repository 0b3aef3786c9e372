/** Who meets an environment variable: Raymond reads it, or gives it to the scripts (and hooks) it runs, to the tools of markdown states' turns, or to the agent CLIs of `raymond test`. */
type EnvironmentUse = 'read' | 'scripts' | 'turns' | 'hooks' | 'tests';

/** One environment variable of the reference. */
export interface EnvironmentVariable {
  name: string;
  use: EnvironmentUse;
  meaning: string;
}

/**
 * Every environment variable Raymond reads, and those it gives the scripts
 * and hooks it runs, for docs/reference/environment.md. A variable added to
 * the code is added here too (the reference test lists the names the code
 * uses and finds each here).
 */
export const ENVIRONMENT: readonly EnvironmentVariable[] = [
  {
    name: 'RAYMOND_QUEUE_SECRET',
    use: 'read',
    meaning:
      'The shared secret of a step queue (`--queue`, `raymond worker`), unless `--queue-secret-file` names a file.',
  },
  {
    name: 'RAYMOND_SERVE_TOKEN',
    use: 'read',
    meaning: 'The token requests to `raymond serve` must carry, unless `--token` gives one.',
  },
  {
    name: 'RAYMOND_QUEUE_STALL_MS',
    use: 'read',
    meaning:
      "How long a worker's job lock lasts (milliseconds, 500 or more; default 30000): a killed worker's job is taken by another after about this long.",
  },
  {
    name: 'RAYMOND_CEILING_DIRECTORIES',
    use: 'read',
    meaning:
      "Folders (absolute paths joined by `:`, as git's `GIT_CEILING_DIRECTORIES`) the search for the project's `.raymond` never goes up into.",
  },
  {
    name: 'HTTPS_PROXY, HTTP_PROXY, NO_PROXY',
    use: 'read',
    meaning:
      'The proxy remote workflows and notification URLs are fetched through (either case), as curl and git read them.',
  },
  {
    name: 'TMPDIR',
    use: 'read',
    meaning:
      'Where extracted zip workflows and large values go (`$TMPDIR/raymond-<kind>-<user>/`).',
  },
  {
    name: 'CLAUDE_CONFIG_DIR',
    use: 'read',
    meaning:
      "Claude Code's folder (default `~/.claude`), where a queued run's session transcripts are found.",
  },
  {
    name: 'PI_CODING_AGENT_DIR',
    use: 'read',
    meaning: "pi's folder (default `~/.pi/agent`), for a pi workflow's sessions.",
  },
  {
    name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    use: 'read',
    meaning:
      "The OTLP/HTTP endpoint a run's OpenTelemetry traces go to (`/v1/traces` is added), unless `--otel-endpoint` gives one; unset: no traces. `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (the traces URL itself) comes first, `OTEL_EXPORTER_OTLP_HEADERS` is sent with each request, and `OTEL_SDK_DISABLED=true` turns traces off.",
  },
  {
    name: 'TRACEPARENT, OTEL_RESOURCE_ATTRIBUTES',
    use: 'scripts',
    meaning:
      "With traces on: the span a step runs under (W3C Trace Context: the turn's for Claude Code and pi, the step's for a script), and `raymond.workflow_id`, `raymond.agent_id` and `raymond.state` after your own resource attributes. Claude Code and pi get them too.",
  },
  {
    name: 'TERM',
    use: 'read',
    meaning: '`dumb`: plain progress lines instead of the live status area.',
  },
  { name: 'RAYMOND_WORKFLOW_ID', use: 'scripts', meaning: "The run's id." },
  {
    name: 'RAYMOND_TEST_STEP',
    use: 'tests',
    meaning:
      '`raymond test`: the ticket of the step an agent CLI runs, which it sends to the scripted model in the `x-raymond-step` header (pi reads it from here; Claude Code gets it in `ANTHROPIC_CUSTOM_HEADERS`).',
  },
  {
    name: 'RAYMOND_AGENT_ID',
    use: 'scripts',
    meaning: "The agent's id (`main`, `main_worker1`...).",
  },
  {
    name: 'RAYMOND_INPUT, RAYMOND_RESULT',
    use: 'scripts',
    meaning:
      "The state's `{{input}}`, when it has one (unset otherwise). A value too large for the environment is in a file instead, named by RAYMOND_INPUT_FILE and RAYMOND_RESULT_FILE.",
  },
  {
    name: 'RAYMOND_ASK_ID',
    use: 'scripts',
    meaning: 'The ask whose answer RAYMOND_INPUT is, in the state the answer led to.',
  },
  {
    name: 'RAYMOND_WORKTREE',
    use: 'scripts',
    meaning: "The agent's worktree folder, when it has one (`worktree=`).",
  },
  {
    name: 'RAYMOND_BRANCH',
    use: 'scripts',
    meaning: "The agent's worktree branch, when it has one.",
  },
  {
    name: 'RAYMOND_TASK_FOLDER',
    use: 'scripts',
    meaning: "The agent's task folder (`task_folder_pattern`).",
  },
  {
    name: 'RAYMOND_ATTR_<name>',
    use: 'scripts',
    meaning:
      'Each fork attribute, on every state of the worker\'s life (`ITEM="x"` gives RAYMOND_ATTR_ITEM); a lower-case safe name is also set as itself (`$item`). Too large: `RAYMOND_ATTR_<name>_FILE`.',
  },
  {
    name: 'RAYMOND_STEP_KEY',
    use: 'scripts',
    meaning:
      "The step's key: the same each time this one step runs (again after a crash, a pause, or on another queue worker), another for the agent's next step, even of the same state. Send it as an `Idempotency-Key`, or name by it what the step did once.",
  },
  {
    name: 'RAYMOND_WORKFLOW_ID, RAYMOND_AGENT_ID',
    use: 'turns',
    meaning:
      "The run's id and the agent's, for the tools a markdown state's turn runs (Claude Code's, pi's, Codex's).",
  },
  {
    name: 'RAYMOND_STEP_KEY_FILE',
    use: 'turns',
    meaning:
      'A file holding the step\'s key (`RAYMOND_STEP_KEY` of scripts), written before each turn: `$(cat "$RAYMOND_STEP_KEY_FILE")`. A file, not a variable: a live Claude Code process serves several steps of its agent and keeps the environment it started with.',
  },
  {
    name: 'RAYMOND_STATE_DIR',
    use: 'scripts',
    meaning:
      "The folder of the run's state file, for a script that calls Raymond back about the run (`raymond merge`); not set for steps that run on `--queue` workers.",
  },
  {
    name: 'RAYMOND_BIN',
    use: 'scripts',
    meaning:
      'The Raymond that runs the script, so it can call it back (`"$RAYMOND_BIN" merge ...`) whether or not it is on PATH.',
  },
  {
    name: 'RAYMOND_MERGE_INTO',
    use: 'scripts',
    meaning: '`raymond merge --check`: the branch being merged into, for the check command.',
  },
  {
    name: 'RAYMOND_EVENT',
    use: 'hooks',
    meaning: 'A `--notify` command: the event as JSON (also on its stdin).',
  },
];
