import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isAbsolute, join } from 'node:path';
import { messageBody, promptOf, writeMessage, type ModelResponse } from './messages-stream.js';
import type { ToolCall, Turn } from './test-spec-schema.js';

/** The header that names a step's ticket on every model request the step's agent CLI makes. */
export const STEP_HEADER = 'x-raymond-step';

/** One markdown step as the scripted model serves it: who runs it, and the turn the test scripted for it. */
export interface StepTicket {
  agent: string;
  /** The state's stem. */
  state: string;
  /** 1-based: the agent's n-th turn in this state. */
  turn: number;
  /** The agent's working directory: relative paths in tool calls are resolved against it. */
  cwd: string;
  backend: 'claude' | 'pi';
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

/** A tool call as the backend names it and takes its input. */
function backendCalls(
  call: ToolCall,
  cwd: string,
  backend: StepTicket['backend'],
): ModelResponse['toolUse'][] {
  const at = (path: string) => (isAbsolute(path) ? path : join(cwd, path));
  if ('tool' in call) return [{ name: call.tool, input: call.input }];
  if ('bash' in call)
    return [{ name: backend === 'pi' ? 'bash' : 'Bash', input: { command: call.bash } }];
  if (backend === 'pi') {
    if ('write' in call)
      return [{ name: 'write', input: { path: at(call.write.path), content: call.write.content } }];
    return [
      {
        name: 'edit',
        input: {
          path: at(call.edit.path),
          edits: [{ oldText: call.edit.old, newText: call.edit.new }],
        },
      },
    ];
  }
  // Claude Code writes or edits only a file it has read in the session (a new file needs no read: the Read fails harmlessly).
  if ('write' in call) {
    const file = at(call.write.path);
    return [
      { name: 'Read', input: { file_path: file } },
      { name: 'Write', input: { file_path: file, content: call.write.content } },
    ];
  }
  const file = at(call.edit.path);
  return [
    { name: 'Read', input: { file_path: file } },
    {
      name: 'Edit',
      input: { file_path: file, old_string: call.edit.old, new_string: call.edit.new },
    },
  ];
}

/**
 * A scripted stand-in for the Anthropic Messages API on 127.0.0.1: each step
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
    const text = await messageBody(req, res, 0);
    if (text === undefined) return;
    const step = this.steps.get(String(req.headers[STEP_HEADER] ?? ''));
    let body: {
      model?: string;
      messages?: Array<{ role: string; content: unknown }>;
      tools?: unknown[];
      system?: unknown;
    };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      res.writeHead(400).end();
      return;
    }
    const model = body.model ?? 'scripted';
    const none = { input_tokens: 0, output_tokens: 0 };
    // Side calls of an agent CLI (titles, summaries) offer no tools: answered, free, and not the step's turn.
    if (!step || !Array.isArray(body.tools) || body.tools.length === 0) {
      writeMessage(res, model, { text: 'ok', usage: none }, ++this.serial);
      return;
    }
    step.requests++;
    step.prompt ??= promptOf(body.messages ?? []);
    const turn = step.ticket.reply;
    if (!turn) {
      if (step.requests === 1) this.onUnscripted(step);
      writeMessage(
        res,
        model,
        {
          text: `raymond test: no reply is scripted for ${step.ticket.state} turn ${step.ticket.turn}`,
          usage: none,
        },
        ++this.serial,
      );
      return;
    }
    const calls = (turn.tools ?? []).flatMap((c) =>
      backendCalls(c, step.ticket.cwd, step.ticket.backend),
    );
    const call = calls[step.requests - 1];
    const usage = {
      input_tokens: turn.tokens?.input ?? 0,
      output_tokens: turn.tokens?.output ?? 0,
    };
    writeMessage(
      res,
      model,
      call ? { toolUse: call, usage: none } : { text: turn.text, usage },
      ++this.serial,
    );
  }
}
