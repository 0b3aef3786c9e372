import { Type as T } from '@sinclair/typebox';
import { checked } from '../schema-problem.js';

/**
 * The history's log lines as schemas: a line is read only when it has the
 * fields the readers go on to use. A hand-edited or foreign line such as
 * `{"v":1}` is skipped and counted (history-store.ts), never a TypeError in
 * `raymond stats`, `raymond plan` or the cost gate. Extra fields are
 * allowed: a newer Raymond may add some.
 */

/** A non-negative finite number: a cost, a count, a duration. */
const figure = () => T.Number({ minimum: 0 });

/** A line of `<workflow-key>/steps.jsonl` (StepRecord in history-types.ts). */
export const stepRecordSchema = checked(
  T.Object({
    v: T.Literal(1),
    run: T.String(),
    at: figure(),
    agent: T.String(),
    state: T.String(),
    scope: T.Optional(T.String()),
    backend: T.String(),
    model: T.Optional(T.String()),
    answeredBy: T.Optional(T.Array(T.String())),
    turns: figure(),
    retries: figure(),
    reminders: figure(),
    costUsd: figure(),
    tokens: figure(),
    wallMs: figure(),
    cpuMs: figure(),
    outcome: T.String(),
    width: T.Optional(figure()),
    rebuilt: T.Optional(T.Boolean()),
  }),
);

/** A line of `<workflow-key>/runs.jsonl` (RunRecord in history-types.ts). */
export const runRecordSchema = checked(
  T.Object({
    v: T.Literal(1),
    run: T.String(),
    workflow: T.String(),
    path: T.String(),
    fingerprint: T.String(),
    source: T.String(),
    startedAt: figure(),
    endedAt: figure(),
    status: T.String(),
    costUsd: figure(),
    steps: figure(),
    agents: figure(),
    maxLive: figure(),
    workers: T.Optional(
      T.Record(T.String(), T.Object({ count: figure(), costUsd: figure() }), {
        must: 'an object of { count, costUsd }',
      }),
    ),
    rebuilt: T.Optional(T.Boolean()),
  }),
);
