import { Type as T, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import { checked, type Checked } from '../schema-problem.js';
import type { WorkflowEntry } from '../scope/workflow-manifest.js';

/**
 * The MCP tools' arguments and results as TypeBox schemas: each is the
 * tool's JSON Schema in `tools/list` and the check of a call's arguments, so
 * the two cannot drift apart.
 */

const WAIT = T.Number({
  minimum: 0,
  must: 'a number of seconds, 0 or more',
  description:
    'how long to wait for the run to end or ask before returning its run_id (0: return at once); the server caps it',
});
const RUN_ID = T.String({ minLength: 1, description: 'the run_id a workflow tool returned' });

/** A workflow tool's arguments: the manifest's input block, then what every run may be given. */
export function workflowArgs(entry: WorkflowEntry): TObject {
  const props: TProperties = {};
  const { mode, label, description } = entry.input;
  if (mode !== 'none') {
    const input = T.String({
      description:
        [label, description].filter((s) => s !== '').join(': ') ||
        "the run's input (its {{input}})",
      ...(mode === 'required' ? { minLength: 1 } : {}),
    });
    props.input = mode === 'optional' ? T.Optional(input) : input;
  }
  props.budget = T.Optional(
    T.Number({
      exclusiveMinimum: 0,
      must: 'a number of USD above 0',
      description: `the most the run may spend, in USD${entry.default_budget > 0 ? ` (default ${entry.default_budget})` : " (default: the server's)"}`,
    }),
  );
  props.budget_hard = T.Optional(
    T.Boolean({
      description:
        'stop the turns running when the budget is reached, mid-turn (otherwise they finish and the run passes the budget by at most one turn)',
    }),
  );
  props.model = T.Optional(
    T.String({
      description: 'a Claude model (opus, sonnet, haiku, a full name) or a pi model (provider/id)',
    }),
  );
  props.working_directory = T.Optional(
    T.String({ description: "the folder the run works in, inside the server's --workdir" }),
  );
  props.wait_seconds = T.Optional(WAIT);
  return T.Object(props, { additionalProperties: false });
}

/** `raymond_status`: a run to report on, and how long to wait for it to end or ask. */
export const STATUS_ARGS = T.Object(
  { run_id: RUN_ID, wait_seconds: T.Optional(WAIT) },
  { additionalProperties: false },
);

/** `raymond_answer`: the ask to answer and the answer. */
export const ANSWER_ARGS = T.Object(
  {
    run_id: RUN_ID,
    ask_id: T.String({ minLength: 1, description: 'the ask_id of a pending question' }),
    answer: T.String({ description: 'the answer, as the person gave it' }),
    wait_seconds: T.Optional(WAIT),
  },
  { additionalProperties: false },
);

/** `raymond_cancel`: the run to stop. */
export const CANCEL_ARGS = T.Object({ run_id: RUN_ID }, { additionalProperties: false });

/** A question a run waits on, as a tool result gives it. */
const ASK = T.Object({
  ask_id: T.String(),
  agent_id: T.String(),
  question: T.String(),
  timeout_at: T.Optional(T.String()),
  gate: T.Optional(T.Record(T.String(), T.Unknown())),
});

/**
 * Every tool's structured result: the run as it stands. Some clients (Claude
 * Code) show the model only this when a tool has an output schema, so it
 * carries the text too (`message`).
 */
export const RUN_REPORT = T.Object({
  message: T.String({
    description:
      'the same text as the content: the result, or what the run waits on and which tool to call next',
  }),
  run_id: T.String(),
  workflow_id: T.String(),
  status: T.String({
    description:
      'running, asking, completed, failed, budget_exceeded, paused, cancelled or stopped',
  }),
  cost_usd: T.Number(),
  budget_usd: T.Number(),
  steps: T.Number(),
  elapsed_seconds: T.Number(),
  result: T.Optional(T.String()),
  error: T.Optional(T.String()),
  asks: T.Array(ASK),
});
/** A tool's structured result. */
export type RunReport = Static<typeof RUN_REPORT>;

/** The compiled checks of the follow tools' arguments. */
export const statusArgs = checked(STATUS_ARGS);
export const answerArgs = checked(ANSWER_ARGS);
export const cancelArgs = checked(CANCEL_ARGS);

const workflowChecks = new WeakMap<WorkflowEntry, Checked<TObject>>();

/** The compiled check of a workflow tool's arguments (compiled once per registry entry). */
export function workflowArgsCheck(entry: WorkflowEntry): Checked<TObject> {
  let c = workflowChecks.get(entry);
  if (!c) workflowChecks.set(entry, (c = checked(workflowArgs(entry))));
  return c;
}
