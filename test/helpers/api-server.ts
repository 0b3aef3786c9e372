import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { messageBody, promptOf, writeMessage } from '../../src/agents/anthropic-messages-api.js';

/** One scripted answer of the fake Messages API. */
export interface Reply {
  /** Final assistant text. */
  text?: string;
  /** Ask Claude Code to run a tool (Bash, Write, Edit, ...); it calls back with the tool_result. */
  toolUse?: { name: string; input: Record<string, unknown> };
  /** Token usage to report; Claude Code prices it with its own table. */
  usage?: { input_tokens: number; output_tokens: number };
  /** Wait before answering. */
  delayMs?: number;
  /** Answer with this HTTP status and an error body instead. */
  status?: number;
  /** Never answer (the connection hangs). */
  stall?: boolean;
}

/** What one request carried, as the tests want to see it. */
export interface ApiRequest {
  model: string;
  /** Number of messages in the conversation sent. */
  messageCount: number;
  /** `Primary working directory` Claude Code announced. */
  cwd: string | null;
  /** The system prompt text. */
  system: string;
  /** Last text block of the last plain user message: the prompt of this turn. */
  prompt: string;
  /** Whether the last user message is a tool_result (a continuation after a tool ran). */
  afterTool: boolean;
  /** Every text in the conversation, joined: for "did the model see marker X" checks. */
  transcript: string;
  /** Whether this is the main agent loop (tools offered) rather than an auxiliary call. */
  main: boolean;
  /** Names of the tools the request offers. */
  tools: string[];
}

type Rule = {
  match: (r: ApiRequest) => boolean;
  reply: (r: ApiRequest, n: number) => Reply;
  count: number;
};

interface Block {
  type: string;
  text?: string;
  content?: unknown;
}

function texts(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return (content as Block[]).flatMap((b) =>
    b.type === 'text' && b.text ? [b.text] : b.type === 'tool_result' ? texts(b.content) : [],
  );
}

/**
 * A scripted stand-in for the Anthropic Messages API on 127.0.0.1, for
 * driving the real `claude` binary in tests. Rules match a request (usually
 * on its prompt) and give the reply; every request is logged.
 */
export class ApiServer {
  readonly requests: ApiRequest[] = [];
  private readonly rules: Rule[] = [];
  private server: Server | undefined;
  private readonly open = new Set<ServerResponse>();
  private serial = 0;
  /** Usage reported when a reply does not say. */
  defaultUsage = { input_tokens: 1000, output_tokens: 100 };
  /** Main-loop requests refused for the rate limit (`limit`), and those answered. */
  refused = 0;
  served = 0;
  /** Main-loop requests in flight now, and the most there were at once. */
  private inFlight = 0;
  peakInFlight = 0;
  private bucket: { perSecond: number; tokens: number; at: number } | undefined;

  /**
   * Allows `perSecond` main-loop requests a second (a token bucket holding
   * one second's worth, at least one request): past it, 429 `rate_limit_error` with `retry-after`,
   * as the real API answers an account over its rate.
   */
  limit(perSecond: number, options: { headers?: boolean } = {}): this {
    this.bucket = { perSecond, tokens: Math.max(1, perSecond), at: Date.now() };
    this.rateHeaders = options.headers ?? true;
    return this;
  }

  /** Whether answers tell the rate as the real API's do (`limit(R, { headers: false })`: an API that does not). */
  private rateHeaders = true;

  /** The real API's `anthropic-ratelimit-requests-*` headers: the limit a minute, and what the bucket holds now. */
  private rateHeadersOf(): Record<string, string> {
    const b = this.bucket;
    if (!b || !this.rateHeaders) return {};
    return {
      'anthropic-ratelimit-requests-limit': String(Math.round(b.perSecond * 60)),
      'anthropic-ratelimit-requests-remaining': String(Math.max(0, Math.floor(b.tokens))),
    };
  }

  private usage: { after: number; resetsInMs: number; until?: number } | undefined;
  /** Main-loop requests refused because the account's usage was spent (`spendAfter`). */
  usageRefused = 0;

  /**
   * After `served` answered main-loop requests, the account's usage is spent
   * for `resetsInMs`: each request gets 429 with the unified limit headers a
   * claude.ai login reads as "You've hit your limit · resets ..." (give the
   * turns CLAUDE_CODE_OAUTH_TOKEN, not an API key). `spentUntil` says when it lifts.
   */
  spendAfter(served: number, resetsInMs: number): this {
    this.usage = { after: served, resetsInMs };
    return this;
  }

  private burst: { model: string; after: number; forMs: number; until?: number } | undefined;
  /** Main-loop requests refused with 529 for overload (`overload`). */
  overloaded = 0;

  /**
   * After `served` answered main-loop requests, those for a model whose id
   * contains `model` get 529 `overloaded_error` for `forMs`, as the API
   * answers a model under too much load; other models answer.
   */
  overload(model: string, served: number, forMs: number): this {
    this.burst = { model, after: served, forMs };
    return this;
  }

  private busy(model: string): boolean {
    const b = this.burst;
    if (!b || this.served < b.after || !model.includes(b.model)) return false;
    b.until ??= Date.now() + b.forMs;
    return Date.now() < b.until;
  }

  get spentUntil(): number | undefined {
    return this.usage?.until;
  }

  private spent(): number | undefined {
    const u = this.usage;
    if (!u || this.served < u.after) return undefined;
    u.until ??= Date.now() + u.resetsInMs;
    return Date.now() < u.until ? u.until : undefined;
  }

  /** Whole seconds until the bucket holds a request again (the API's `retry-after`): 1 at a rate of one a second or more. */
  private retryAfter(): string {
    const b = this.bucket!;
    return String(Math.max(1, Math.ceil((1 - b.tokens) / b.perSecond)));
  }

  private admit(): boolean {
    const b = this.bucket;
    if (!b) return true;
    const now = Date.now();
    b.tokens = Math.min(Math.max(1, b.perSecond), b.tokens + ((now - b.at) / 1000) * b.perSecond);
    b.at = now;
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  get url(): string {
    const addr = this.server!.address() as AddressInfo;
    return `http://127.0.0.1:${addr.port}`;
  }

  /** Environment for a `claude` process that talks to this server, with its own HOME. */
  env(home: string): Record<string, string> {
    return {
      ANTHROPIC_BASE_URL: this.url,
      ANTHROPIC_API_KEY: 'test-key',
      DISABLE_TELEMETRY: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      HOME: home,
    };
  }

  /** Adds a rule: a prompt substring, a pattern or a predicate, and the reply. Earlier rules win. */
  on(
    match: string | RegExp | ((r: ApiRequest) => boolean),
    reply: Reply | ((r: ApiRequest, n: number) => Reply),
  ): this {
    const m =
      typeof match === 'string'
        ? (r: ApiRequest) => r.prompt.includes(match)
        : match instanceof RegExp
          ? (r: ApiRequest) => match.test(r.prompt)
          : match;
    this.rules.push({
      match: m,
      reply: typeof reply === 'function' ? reply : () => reply,
      count: 0,
    });
    return this;
  }

  /** Main-loop requests whose prompt contains `marker`. */
  requestsFor(marker: string): ApiRequest[] {
    return this.requests.filter((r) => r.main && r.prompt.includes(marker));
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((ok) => this.server!.listen(0, '127.0.0.1', ok));
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    await new Promise<void>((ok) => this.server?.close(() => ok()) ?? ok());
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await messageBody(req, res, 100);
    if (text === undefined) return;
    const body = JSON.parse(text) as {
      model: string;
      messages: Array<{ role: string; content: unknown }>;
      system?: unknown;
      tools?: unknown[];
      stream?: boolean;
    };
    const system = texts(body.system).join('\n');
    const users = body.messages.filter((m) => m.role === 'user');
    const last = users.at(-1);
    const lastBlocks = Array.isArray(last?.content) ? (last.content as Block[]) : [];
    const afterTool = lastBlocks.some((b) => b.type === 'tool_result');
    const transcript = body.messages.flatMap((m) => texts(m.content)).join('\n');
    const request: ApiRequest = {
      model: body.model,
      messageCount: body.messages.length,
      // Claude Code states the directory in a system reminder of the first message.
      cwd: /Primary working directory: (.*)/.exec(`${system}\n${transcript}`)?.[1]?.trim() ?? null,
      system,
      prompt: promptOf(body.messages),
      afterTool,
      transcript,
      main: Array.isArray(body.tools) && body.tools.length > 0,
      tools: Array.isArray(body.tools)
        ? (body.tools as Array<{ name?: unknown }>).flatMap((t) =>
            typeof t.name === 'string' ? [t.name] : [],
          )
        : [],
    };
    this.requests.push(request);
    const spentUntil = request.main ? this.spent() : undefined;
    if (spentUntil !== undefined) {
      this.usageRefused++;
      const reset = String(Math.ceil(spentUntil / 1000));
      res
        .writeHead(429, {
          'content-type': 'application/json',
          'anthropic-ratelimit-unified-status': 'rejected',
          'anthropic-ratelimit-unified-reset': reset,
          'anthropic-ratelimit-unified-5h-status': 'rejected',
          'anthropic-ratelimit-unified-5h-reset': reset,
          'anthropic-ratelimit-unified-representative-claim': 'five_hour',
        })
        .end(
          JSON.stringify({
            type: 'error',
            error: { type: 'rate_limit_error', message: 'usage limit' },
          }),
        );
      return;
    }
    if (request.main && this.busy(request.model)) {
      this.overloaded++;
      res.writeHead(529, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          type: 'error',
          error: { type: 'overloaded_error', message: 'Overloaded' },
        }),
      );
      return;
    }
    if (request.main && !this.admit()) {
      this.refused++;
      res
        .writeHead(429, {
          'content-type': 'application/json',
          'retry-after': this.retryAfter(),
          ...this.rateHeadersOf(),
        })
        .end(
          JSON.stringify({
            type: 'error',
            error: {
              type: 'rate_limit_error',
              message: 'Number of requests has exceeded your rate limit',
            },
          }),
        );
      return;
    }
    if (request.main) {
      for (const [k, v] of Object.entries(this.rateHeadersOf())) res.setHeader(k, v);
      this.served++;
      this.peakInFlight = Math.max(this.peakInFlight, ++this.inFlight);
      res.on('close', () => this.inFlight--);
    }
    const rule = request.main ? this.rules.find((r) => r.match(request)) : undefined;
    const reply: Reply = rule
      ? rule.reply(request, ++rule.count)
      : { text: request.main ? 'No rule matched this prompt.' : 'ok' };
    if (reply.stall) {
      this.open.add(res);
      return;
    }
    if (reply.delayMs) await new Promise((ok) => setTimeout(ok, reply.delayMs));
    if (reply.status) {
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          type: 'error',
          error: {
            type:
              (
                {
                  401: 'authentication_error',
                  404: 'not_found_error',
                  429: 'rate_limit_error',
                } as Record<number, string>
              )[reply.status] ?? 'api_error',
            message: 'scripted failure',
          },
        }),
      );
      return;
    }
    this.stream(res, body.model, reply);
  }

  private stream(res: ServerResponse, model: string, reply: Reply): void {
    writeMessage(
      res,
      model,
      {
        ...(reply.text !== undefined ? { text: reply.text } : {}),
        ...(reply.toolUse ? { toolUse: reply.toolUse } : {}),
        usage: reply.usage ?? this.defaultUsage,
      },
      ++this.serial,
    );
  }
}
