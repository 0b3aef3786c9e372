import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer of the fake Responses API. */
export interface ResponsesReply {
  /** The assistant's text (after the command, when there is one). */
  text?: string;
  /** First answer with an `exec_command` call of this shell command; the text comes once its output is back. */
  command?: string;
  /** Call the command (or tool) even when the request answers a call: a turn of many calls. */
  again?: boolean;
  /** More arguments of that call: `{ sandbox_permissions: 'require_escalated' }` asks to leave the sandbox. */
  commandArgs?: Record<string, unknown>;
  /** First answer with a call of this tool (an MCP tool: `namespace: 'mcp__SERVER'`), then the text. */
  call?: { name: string; namespace?: string; arguments?: Record<string, unknown> };
  /** Tokens to report; `cached` is the part of `input` read from the cache. */
  usage?: { input: number; cached?: number; output: number; reasoning?: number };
  /** Answer with this HTTP status (and `body`, `headers`) instead of a stream. */
  status?: number;
  /** The error body sent with `status`, as JSON; by default `{"error": {"message": "scripted failure"}}`. */
  body?: unknown;
  headers?: Record<string, string>;
  /** End the stream after the text, before `response.completed`. */
  cut?: boolean;
  /** Answer with a refusal (the model declines) instead of text. */
  refusal?: string;
}

/** What one request carried, as the tests want to see it. */
export interface ResponsesRequest {
  model: string;
  /** The text of the last user message: this turn's prompt. */
  prompt: string;
  /** Whether the request answers a function call (its last input item is a `function_call_output`). */
  afterTool: boolean;
  /** The last function call's output, when `afterTool`. */
  toolOutput: string;
  /** Every text of every input item (messages, calls, outputs), joined: "did the model see X" checks. */
  transcript: string;
  /** How many input items the request carried. */
  inputCount: number;
  /** The developer messages' text (codex's instructions and a grant's `developer_instructions`). */
  developer: string;
  /** The names of the tools the request offers (functions, and MCP tools as codex names them). */
  tools: string[];
  /** `reasoning.effort` as sent. */
  effort: string | undefined;
  headers: IncomingMessage['headers'];
  /** The request body as sent. */
  body: Record<string, unknown>;
}

type Rule = {
  match: (r: ResponsesRequest) => boolean;
  reply: (r: ResponsesRequest, n: number) => ResponsesReply;
  count: number;
};

interface Item {
  type?: string;
  role?: string;
  content?: unknown;
  arguments?: string;
  output?: unknown;
}

function texts(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return (content as Array<{ text?: unknown }>).flatMap((c) =>
    typeof c.text === 'string' ? [c.text] : [],
  );
}

const itemText = (i: Item): string[] =>
  i.type === 'message'
    ? texts(i.content)
    : i.type === 'function_call'
      ? [i.arguments ?? '']
      : i.type === 'function_call_output'
        ? texts(i.output)
        : [];

/** The default turn: 1,000 tokens in (100 of them cached), 50 out. */
export const DEFAULT_USAGE = { input: 1000, cached: 100, output: 50 };

/**
 * A scripted stand-in for OpenAI's Responses API on 127.0.0.1 (`POST
 * /v1/responses`, streamed), for driving the real `codex` in tests. Rules
 * match a request on its last user message and give the reply; every
 * request is logged.
 */
export class ResponsesServer {
  readonly requests: ResponsesRequest[] = [];
  private readonly rules: Rule[] = [];
  private server: Server | undefined;
  private serial = 0;

  get url(): string {
    const addr = this.server!.address() as AddressInfo;
    return `http://127.0.0.1:${addr.port}/v1`;
  }

  /** Adds a rule: a prompt substring or a predicate, and the reply. Earlier rules win. */
  on(
    match: string | ((r: ResponsesRequest) => boolean),
    reply: ResponsesReply | ((r: ResponsesRequest, n: number) => ResponsesReply),
  ): this {
    this.rules.push({
      match: typeof match === 'string' ? (r) => r.prompt.includes(match) : match,
      reply: typeof reply === 'function' ? reply : () => reply,
      count: 0,
    });
    return this;
  }

  /** Requests whose prompt contains `marker`, in order. */
  requestsFor(marker: string): ResponsesRequest[] {
    return this.requests.filter((r) => r.prompt.includes(marker));
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((ok) => this.server!.listen(0, '127.0.0.1', ok));
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((ok) => this.server?.close(() => ok()) ?? ok());
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST' || !req.url?.endsWith('/responses')) {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      model: string;
      input: Item[];
      reasoning?: { effort?: string };
      tools?: Array<{ name?: unknown; type?: unknown }>;
    };
    const last = body.input.at(-1);
    const user = body.input.filter((i) => i.type === 'message' && i.role === 'user').at(-1);
    const request: ResponsesRequest = {
      model: body.model,
      prompt: user ? texts(user.content).join('\n') : '',
      afterTool: last?.type === 'function_call_output',
      toolOutput: last?.type === 'function_call_output' ? itemText(last).join('\n') : '',
      transcript: body.input.flatMap(itemText).join('\n'),
      inputCount: body.input.length,
      developer: body.input
        .filter((i) => i.type === 'message' && i.role === 'developer')
        .flatMap(itemText)
        .join('\n'),
      tools: (body.tools ?? []).map((t) => String(t.name ?? t.type)),
      effort: body.reasoning?.effort,
      headers: req.headers,
      body: body,
    };
    this.requests.push(request);
    const rule = this.rules.find((r) => r.match(request));
    const reply = rule
      ? rule.reply(request, ++rule.count)
      : { text: 'No rule matched this prompt.' };
    if (reply.status !== undefined) {
      res
        .writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers })
        .end(JSON.stringify(reply.body ?? { error: { message: 'scripted failure' } }));
      return;
    }
    this.stream(res, reply, request);
  }

  private stream(res: ServerResponse, reply: ResponsesReply, req: ResponsesRequest): void {
    const n = ++this.serial;
    const id = `resp_${n}`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (type: string, data: Record<string, unknown>) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    send('response.created', { response: { id, status: 'in_progress' } });
    const call =
      reply.command !== undefined
        ? { name: 'exec_command', arguments: { cmd: reply.command, ...reply.commandArgs } }
        : reply.call;
    const item =
      call && (!req.afterTool || reply.again)
        ? {
            type: 'function_call',
            id: `fc_${n}`,
            call_id: `call_${n}`,
            name: call.name,
            ...(call.namespace !== undefined ? { namespace: call.namespace } : {}),
            arguments: JSON.stringify(call.arguments ?? {}),
          }
        : {
            type: 'message',
            id: `msg_${n}`,
            role: 'assistant',
            status: 'completed',
            content: [
              reply.refusal !== undefined
                ? { type: 'refusal', refusal: reply.refusal }
                : { type: 'output_text', text: reply.text ?? '', annotations: [] },
            ],
          };
    send('response.output_item.added', { output_index: 0, item });
    send('response.output_item.done', { output_index: 0, item });
    if (reply.cut) {
      res.end();
      return;
    }
    const u: NonNullable<ResponsesReply['usage']> = reply.usage ?? DEFAULT_USAGE;
    send('response.completed', {
      response: {
        id,
        status: 'completed',
        output: [item],
        usage: {
          input_tokens: u.input,
          input_tokens_details: { cached_tokens: u.cached ?? 0 },
          output_tokens: u.output,
          output_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
          total_tokens: u.input + u.output,
        },
      },
    });
    res.end();
  }
}
