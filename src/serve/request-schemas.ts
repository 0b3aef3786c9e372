import type { IncomingMessage } from 'node:http';
import { Type as T, type Static, type TSchema } from '@sinclair/typebox';
import { checked, type Checked } from '../schema-problem.js';
import { HttpError, readJsonObject } from './http-error.js';

/**
 * The JSON bodies `raymond serve` accepts, as schemas: the routes check a
 * body with them, and /openapi.json describes the same bodies with them
 * (openapi-schemas.ts), so the document cannot drift from the checks. Empty text
 * and null stand for "not given", as they did before the schemas.
 */

const given = <S extends TSchema>(s: S) => T.Optional(T.Union([s, T.Null()]));

/** `POST /runs`. */
export const CREATE_RUN = T.Object({
  workflow_id: T.String({
    minLength: 1,
    description: 'the id of a served workflow (GET /workflows)',
  }),
  input: given(
    T.String({
      description: "the run's input; required, optional or refused as the workflow says",
    }),
  ),
  budget: given(
    T.Number({
      minimum: 0,
      must: 'a number of USD, 0 or more',
      description: "USD; 0 or absent: the workflow's default_budget, else the server's",
    }),
  ),
  budget_hard: given(
    T.Boolean({
      must: 'true or false',
      description:
        "hold the budget inside turns too (--budget-hard): the turns running when the run's cost, with what they streamed, reaches it are stopped and their agents paused; absent: the server's config (budget_hard)",
    }),
  ),
  model: given(
    T.String({
      description:
        "a model of the workflow's backend (GET /workflows: `backend`) or of a workflow it calls: Claude Code's opus, sonnet, haiku or a full name, pi's provider/id, a Codex model name",
    }),
  ),
  effort: given(
    T.String({
      description:
        "an effort of the workflow's backend or of a workflow it calls: Claude Code's low, medium, high; pi's off, minimal, low, medium, high, xhigh; Codex's none, minimal, low, medium, high, xhigh, max",
    }),
  ),
  working_directory: given(
    T.String({
      description: 'the folder the run works in, inside --workdir when the server has one',
    }),
  ),
  environment: T.Optional(
    T.Record(T.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), T.String(), {
      additionalProperties: false,
      must: 'an object of variable names to strings',
      description: "variables added to the run's environment",
    }),
  ),
});
/** A `POST /runs` body, checked. */
export type CreateRun = Static<typeof CREATE_RUN>;

/** `POST /runs/{id}/asks/{ask_id}` as JSON (a multipart answer is read by ask-uploads.ts). */
export const ANSWER_ASK = T.Object({
  response: T.Optional(T.String({ description: 'the answer; empty when absent' })),
});

/** The compiled checks of the bodies. */
export const createRunBody = checked(CREATE_RUN);
export const answerAskBody = checked(ANSWER_ASK);

/** Reads a JSON object body and checks it: a body that does not fit is a 400 `bad_request` naming its wrong field. */
export async function readRequestBody<S extends TSchema>(
  req: IncomingMessage,
  body: Checked<S>,
): Promise<Static<S>> {
  const value = await readJsonObject(req);
  if (body.check(value)) return value;
  throw new HttpError(
    400,
    'bad_request',
    `invalid request body: ${body.problem(value, 'the body')}`,
  );
}

/** A schema as JSON Schema for /openapi.json: without the keywords the one-line messages use (`must`, `opaque`). */
export function jsonSchemaOf(schema: TSchema): object {
  const json = JSON.parse(
    JSON.stringify(schema, (key, value: unknown) =>
      key === 'must' || key === 'opaque' ? undefined : value,
    ),
  ) as object;
  return json;
}
