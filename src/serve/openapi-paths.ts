import { ref } from './openapi-schemas.js';

/**
 * The paths of the OpenAPI document: every route the server has, with its parameters and
 * answers. Apart from openapi.ts because the list is long; a test checks that it names exactly
 * the routes of the route table.
 */

const error = {
  description: 'refused: `{"error": "<message>", "code": "<stable code>"}`',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
};
const json = (description: string, schema: object) => ({
  description,
  content: { 'application/json': { schema } },
});
const id = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
const askId = { name: 'ask_id', in: 'path', required: true, schema: { type: 'string' } };
/** `/mcp` speaks MCP (JSON-RPC), not this API: each method in a line, the protocol's own documents for the rest. */
const mcp = (summary: string) => ({
  summary: `MCP Streamable HTTP: ${summary}`,
  responses: { 200: { description: 'JSON-RPC, as JSON or Server-Sent Events' }, 401: error },
});

/** Every path and method `raymond serve` answers, as OpenAPI 3.1 operations. */
export const PATHS: Record<string, Record<string, object>> = {
  '/workflows': {
    get: {
      summary: 'List the workflows found under the --root folders',
      responses: { 200: json('the workflows', { type: 'array', items: ref('Workflow') }) },
    },
  },
  '/workflows/rescan': {
    post: {
      summary: 'Scan the roots again; answers the workflows now served',
      responses: { 200: json('the workflows', { type: 'array', items: ref('Workflow') }) },
    },
  },
  '/workflows/{id}': {
    get: {
      summary: 'One workflow',
      parameters: [id],
      responses: { 200: json('the workflow', ref('Workflow')), 404: error },
    },
  },
  '/runs': {
    post: {
      summary: 'Start a run of a workflow',
      requestBody: {
        required: true,
        content: { 'application/json': { schema: ref('CreateRun') } },
      },
      responses: {
        201: json('started', {
          type: 'object',
          properties: {
            run_id: { type: 'string' },
            status: { type: 'string' },
            started_at: { type: 'string', format: 'date-time' },
          },
        }),
        400: error,
        403: error,
        404: error,
        413: error,
        503: error,
      },
    },
    get: {
      summary:
        "Every run of the pool, newest first; ?summary=true leaves out each run's agents and gives their number, agent_count",
      parameters: [{ name: 'summary', in: 'query', required: false, schema: { type: 'boolean' } }],
      responses: { 200: json('the runs', { type: 'array', items: ref('Run') }) },
    },
  },
  '/runs/{id}': {
    get: {
      summary:
        'One run: agents (machine state, state, stack depth, cost), cost, elapsed time, result',
      parameters: [id],
      responses: { 200: json('the run', ref('Run')), 404: error },
    },
  },
  '/runs/{id}/snapshot': {
    get: {
      summary: 'The run, its pending asks and its last event id, in one answer',
      parameters: [id],
      responses: {
        200: json('the snapshot', {
          type: 'object',
          properties: {
            run: ref('Run'),
            pending_asks: { type: 'array', items: ref('PendingAsk') },
            last_event_id: { type: 'integer' },
            live: {
              type: 'object',
              description: "the run as Raymond's web page reads it (src/web/live-snapshot.ts)",
            },
          },
        }),
        404: error,
      },
    },
  },
  '/runs/{id}/output': {
    get: {
      summary:
        "The run's events as Server-Sent Events; every event has an id, and Last-Event-ID (or ?last_event_id=) resumes after it. The stream ends with the run.",
      parameters: [
        id,
        { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'integer' } },
        { name: 'last_event_id', in: 'query', required: false, schema: { type: 'integer' } },
      ],
      responses: {
        200: {
          description: "`data:` holds `{type, <ray's fields>, Timestamp, run_id, raymond?}`",
          content: { 'text/event-stream': { schema: { type: 'string' } } },
        },
        404: error,
      },
    },
  },
  '/runs/{id}/cancel': {
    post: {
      summary:
        "Stop the run's steps; it is cancelled (resumable by hand, not resumed at the next start)",
      parameters: [id],
      responses: {
        200: json('cancelled', {
          type: 'object',
          properties: { run_id: { type: 'string' }, status: { type: 'string' } },
        }),
        404: error,
        409: error,
      },
    },
  },
  '/runs/{id}/diagram.svg': {
    get: {
      summary: "The run's workflow as raymond diagram --html draws it",
      parameters: [id],
      responses: {
        200: {
          description: 'the diagram',
          content: { 'image/svg+xml': { schema: { type: 'string' } } },
        },
        404: error,
      },
    },
  },
  '/runs/{id}/pending-asks': {
    get: {
      summary: 'The asks waiting for an answer',
      parameters: [id],
      responses: { 200: json('the asks', { type: 'array', items: ref('PendingAsk') }), 404: error },
    },
  },
  '/runs/{id}/asks/{ask_id}': {
    post: {
      summary:
        'Answer an ask: JSON {"response": "..."}, or multipart/form-data with a `response` field and files',
      parameters: [id, askId],
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: ref('AnswerAsk') },
          'multipart/form-data': {
            schema: {
              type: 'object',
              properties: { response: { type: 'string' } },
              additionalProperties: { type: 'string', format: 'binary' },
            },
          },
        },
      },
      responses: {
        200: json('answered', {
          type: 'object',
          properties: {
            run_id: { type: 'string' },
            ask_id: { type: 'string' },
            status: { type: 'string', enum: ['resumed'] },
          },
        }),
        400: error,
        404: error,
        409: error,
        413: error,
      },
    },
  },
  '/runs/{id}/asks/{ask_id}/files': {
    get: {
      summary: "The ask's staged and uploaded files",
      parameters: [id, askId],
      responses: { 200: json('the files', { type: 'array', items: ref('File') }), 404: error },
    },
  },
  '/runs/{id}/asks/{ask_id}/files/{path}': {
    get: {
      summary:
        'One file of an ask (attachment; ?disposition=inline for images and PDFs); nosniff and a sandboxing CSP',
      parameters: [
        id,
        askId,
        { name: 'path', in: 'path', required: true, schema: { type: 'string' } },
        {
          name: 'disposition',
          in: 'query',
          required: false,
          schema: { type: 'string', enum: ['inline', 'attachment'] },
        },
      ],
      responses: { 200: { description: 'the file' }, 400: error, 404: error },
    },
  },
  '/mcp': {
    post: mcp('a JSON-RPC message; an initialize request opens a session (Mcp-Session-Id)'),
    get: mcp("the session's stream of server messages"),
    delete: mcp('close the session'),
  },
  '/openapi.json': {
    get: { summary: 'This description', responses: { 200: json('OpenAPI 3', { type: 'object' }) } },
  },
  '/login': {
    post: {
      summary:
        'Log the page in: a form with `token`; sets an HttpOnly, SameSite=Strict cookie and redirects to /',
      requestBody: {
        content: {
          'application/x-www-form-urlencoded': {
            schema: { type: 'object', properties: { token: { type: 'string' } } },
          },
        },
      },
      responses: { 303: { description: 'logged in' }, 401: error },
    },
  },
  '/': {
    get: {
      summary: 'The web page',
      responses: {
        200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } },
      },
    },
  },
};
