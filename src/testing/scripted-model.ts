import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { STEP_HEADER } from '../agents/agent-backend.js';
import { allBackends, backendNamed } from '../agents/registry/registry.js';
import type { ModelApi, ModelReply } from '../agents/model-api.js';
import type { Turn } from './test-spec-schema.js';

/** One markdown step as the scripted model serves it: who runs it, and the turn the test scripted for it. */
export interface StepTicket {
  agent: string;
  /** The state's stem. */
  state: string;
  /** 1-based: the agent's n-th turn in this state. */
  turn: number;
  /** The agent's working directory: relative paths in tool calls are resolved against it. */
  cwd: string;
  /** The backend whose CLI runs the step: its tool names, and the API it asks in. */
  backend: string;
  /** The scripted turn; absent: the test has none for it. */
  reply?: Exclude<Turn, string>;
}

/** What the model saw of one step. */
export interface StepLog {
  ticket: StepTicket;
  /** The prompt of the step's first request; null if the agent CLI never asked. */
  prompt: string | null;
  requests: number;
}

/**
 * A scripted stand-in for the model APIs (Anthropic's Messages, OpenAI's
 * Responses) on 127.0.0.1: each step
 * opens a ticket, its agent CLI sends the ticket in a header, and every
 * request of the step is answered from the ticket's turn — its tool calls
 * one per response, then its final text with its tokens. A step with no
 * scripted turn is answered with a note and reported; nothing ever leaves
 * the machine.
 */
export class ScriptedModel {
  private server: Server | undefined;
  private readonly steps = new Map<string, StepLog>();
  private serial = 0;

  constructor(private readonly onUnscripted: (log: StepLog) => void) {}

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((ok) => this.server!.listen(0, '127.0.0.1', ok));
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((ok) => (this.server ? this.server.close(() => ok()) : ok()));
  }

  /** Opens a step's ticket; its token goes in the step's header. */
  open(ticket: StepTicket): string {
    const token = `step${this.steps.size + 1}`;
    this.steps.set(token, { ticket, prompt: null, requests: 0 });
    return token;
  }

  /** What the model saw of the step with this token. */
  log(token: string): StepLog | undefined {
    return this.steps.get(token);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // The API of whichever backend's CLI asks: each backend names the one it speaks.
    const api = modelApis().find((a) => a.accepts(req.method, req.url));
    if (!api) {
      req.resume();
      res.writeHead(404).end();
      return;
    }
    const text = await api.body(req, res);
    if (text === undefined) return;
    const step = this.steps.get(String(req.headers[STEP_HEADER] ?? ''));
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      res.writeHead(400).end();
      return;
    }
    const model = typeof body.model === 'string' ? body.model : 'scripted';
    const write = (reply: ModelReply) => api.write(res, model, reply, ++this.serial);
    const none = { input_tokens: 0, output_tokens: 0 };
    // Side calls of an agent CLI (titles, summaries) offer no tools: answered, free, and not the step's turn.
    if (!step || !api.offersTools(body)) {
      write({ text: 'ok', usage: none });
      return;
    }
    step.requests++;
    step.prompt ??= api.prompt(body);
    const turn = step.ticket.reply;
    if (!turn) {
      if (step.requests === 1) this.onUnscripted(step);
      write({
        text: `raymond test: no reply is scripted for ${step.ticket.state} turn ${step.ticket.turn}`,
        usage: none,
      });
      return;
    }
    const scripted = backendNamed(step.ticket.backend)!.scripted;
    const calls = (turn.tools ?? []).flatMap((c) => scripted.toolCalls(c, step.ticket.cwd));
    const call = calls[step.requests - 1];
    const usage = {
      input_tokens: turn.tokens?.input ?? 0,
      output_tokens: turn.tokens?.output ?? 0,
    };
    write(call ? { toolUse: call, usage: none } : { text: turn.text, usage });
  }
}

/** Every API a backend's CLI speaks, each once. */
function modelApis(): ModelApi[] {
  return [...new Set(allBackends().map((b) => b.scripted.api))];
}
