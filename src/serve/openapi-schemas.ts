import { ANSWER_ASK, CREATE_RUN, jsonSchemaOf } from './request-schemas.js';

/**
 * The component schemas of the OpenAPI document: the JSON the server answers with, and the
 * request bodies as the routes check them (request-schemas.ts, TypeBox, so JSON Schema as
 * OpenAPI 3.1's are). Apart from the paths so each list stays readable on its own.
 */

/** A reference to one of the component schemas below. */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The document's `components.schemas`, by name. */
export const SCHEMAS = {
  Error: {
    type: 'object',
    required: ['error', 'code'],
    properties: {
      error: { type: 'string' },
      code: { type: 'string' },
      constraint: { type: 'string' },
    },
  },
  Workflow: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      description: { type: 'string' },
      input: {
        type: 'object',
        properties: {
          mode: { type: 'string', enum: ['required', 'optional', 'none'] },
          label: { type: 'string' },
          description: { type: 'string' },
        },
      },
      default_budget: { type: 'number' },
      requires_human_input: { type: 'boolean' },
      backend: {
        type: 'string',
        description:
          "the agent CLI its markdown states run on (the manifest's `backend`, `claude` when it names none): whose models and efforts the page offers, and which POST /runs checks `model` and `effort` against (with those of the workflows it calls)",
      },
    },
  },
  CreateRun: jsonSchemaOf(CREATE_RUN),
  AnswerAsk: jsonSchemaOf(ANSWER_ASK),
  Agent: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      current_state: { type: 'string' },
      status: { type: 'string' },
      machine_state: {
        type: 'string',
        enum: ['idle', 'invoking', 'asking', 'awaiting-child', 'terminated', 'failed', 'paused'],
      },
      stack_depth: { type: 'integer' },
      cost_usd: { type: 'number' },
      result: { type: 'string' },
    },
  },
  Run: {
    type: 'object',
    properties: {
      run_id: { type: 'string' },
      workflow_id: { type: 'string' },
      status: {
        type: 'string',
        enum: [
          'running',
          'asking',
          'completed',
          'failed',
          'cancelled',
          'budget_exceeded',
          'paused',
        ],
      },
      current_state: { type: 'string' },
      agents: { type: 'array', items: ref('Agent') },
      cost_usd: { type: 'number' },
      cost_by_state: {
        type: 'array',
        description:
          "The run's cost by state, dearest first (a state of a cross-workflow callee as `<workflow key>:<state>`)",
        items: ref('StateCost'),
      },
      budget_usd: { type: 'number' },
      budgets: {
        type: 'object',
        description:
          "The run's budget (absent when unlimited) and each branch's (`<fork budget>`): spent, reserved by the steps running, and left (docs/cost.md)",
        properties: {
          run: ref('Budget'),
          branches: {
            type: 'array',
            items: {
              allOf: [
                ref('Budget'),
                { type: 'object', properties: { branch: { type: 'string' } } },
              ],
            },
          },
        },
      },
      started_at: { type: 'string', format: 'date-time' },
      elapsed_seconds: { type: 'number' },
      result: { type: 'string' },
      error: { type: 'string' },
      pending_asks: { type: 'integer' },
      account_widths: {
        type: 'array',
        description:
          "How many turns the run starts at once against each backend's account, for those whose width changed (docs/big-runs.md, Running wide against API limits)",
        items: ref('AccountWidth'),
      },
      state_file: { type: 'string' },
      last_event_id: { type: 'integer' },
    },
  },
  Budget: {
    type: 'object',
    properties: {
      budget_usd: { type: 'number' },
      spent_usd: { type: 'number' },
      reserved_usd: {
        type: 'number',
        description: "What the steps running now reserved of it (each its state's p90 forecast)",
      },
      left_usd: { type: 'number', description: 'The budget less what was spent and reserved' },
    },
  },
  AccountWidth: {
    type: 'object',
    properties: {
      backend: { type: 'string' },
      width: {
        type: 'integer',
        description: 'Turns started at once now; 0 while a usage limit parks the account',
      },
      was: { type: 'integer' },
      ceiling: {
        type: 'integer',
        description: '--max-parallel, or the machine turn slots when fewer',
      },
      reason: {
        type: 'string',
        enum: ['rate-limited', 'overloaded', 'recovering', 'usage-limit', 'paced'],
      },
      until: {
        type: 'string',
        format: 'date-time',
        description: 'A usage limit: when turns start again',
      },
      requests_per_minute: {
        type: 'number',
        description:
          "paced: the model requests a minute the account's gate sends (the API's limit, or learned from its refusals)",
      },
      rate_told: {
        type: 'boolean',
        description: "paced: the rate is the API's own (its rate-limit headers), not learned",
      },
      message: { type: 'string' },
    },
  },
  StateCost: {
    type: 'object',
    properties: {
      state: { type: 'string' },
      steps: { type: 'integer' },
      turns: { type: 'integer', description: 'agent CLI invocations (0 for a script)' },
      cost_usd: { type: 'number' },
      share: { type: 'number', description: "its part of the run's cost, 0 to 1" },
      wall_ms: { type: 'integer' },
      answered_by: {
        type: 'object',
        additionalProperties: { type: 'integer' },
        description:
          'its steps by the model that answered them (a fallback model included); absent: no model named',
      },
    },
  },
  File: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      size: { type: 'integer' },
      content_type: { type: 'string' },
      source: { type: 'string', enum: ['display', 'upload'] },
    },
  },
  PendingAsk: {
    type: 'object',
    properties: {
      run_id: { type: 'string' },
      ask_id: { type: 'string' },
      agent_id: { type: 'string' },
      prompt: { type: 'string' },
      created_at: { type: 'string' },
      timeout_at: { type: 'string' },
      next_state: { type: 'string' },
      gate: {
        type: 'object',
        description:
          'Set when the question is the cost gate (--confirm-over / confirm_over): answer yes, stop, or a new amount',
        properties: {
          kind: { type: 'string', enum: ['state', 'fork'] },
          state: { type: 'string' },
          forecast_usd: { type: 'number' },
          spent_usd: { type: 'number' },
          amount_usd: { type: 'number' },
          workers: { type: 'integer' },
        },
      },
      file_affordance: { type: 'object' },
      staged_files: { type: 'array', items: ref('File') },
      staging_errors: { type: 'array', items: { type: 'string' } },
    },
  },
};
