import { describeDenial, type ToolDenial } from '../../executors/tool-denial.js';
import { asObject, objectsOf, parseObjectLine } from '../json-line.js';
import {
  describeTool,
  limitFromText,
  limitSignal,
  toEpochMs,
  tokens,
  type Json,
} from './stream-fields.js';
import type { StreamFatal, StreamProgress, StreamSummary } from './stream-summary.js';
import { StreamUsage } from './stream-usage.js';

export { describeDenial };

/**
 * The longest stream line read: 16 Mi characters. Claude Code's lines are
 * far shorter (a final text is bounded by the model's output); a longer one
 * is skipped as it streams by, so no output can exhaust memory or a string's
 * maximum length.
 */
export const MAX_LINE_CHARS = 16 * 2 ** 20;

/**
 * Reads a stream-json output as it arrives. Lines may be several MB long;
 * a line that is not JSON is reported and skipped, never fatal. Each chunk
 * is scanned once, so the cost stays linear in the output however it is cut.
 */
export class StreamReader {
  /** The pieces of the line being read, and their length. */
  private parts: string[] = [];
  private length = 0;
  /** Characters of an overlong line skipped so far (0: none). */
  private skipped = 0;
  readonly summary: StreamSummary = {
    sessionId: null,
    resultText: null,
    isError: false,
    totalCostUsd: null,
    invocationTokens: 0,
    reportedTokens: 0,
    usageLimit: null,
    limited: { retries: 0, status: null, gaveUp: false },
    badLines: 0,
    cutLines: 0,
    denials: [],
    fatal: null,
    models: [],
    fellBack: false,
    streamedCostUsd: 0,
  };
  /** Tool calls of the turn by id, for a denial that names only the id; and the ids already denied. */
  private readonly toolInputs = new Map<string, { tool: string; input: Json }>();
  private readonly deniedIds = new Set<string>();

  constructor(
    private readonly onProgress: (p: StreamProgress) => void = () => {},
    /**
     * The state's `tools`, when restricted: a call to another tool fails
     * (Claude Code answers it as an unknown tool, with no permission
     * record), and is reported as denied like one the permissions refused.
     */
    private readonly tools?: ReadonlySet<string>,
    /** The turn's messages priced as they stream (the table's prices by default). */
    private readonly usage = new StreamUsage(),
  ) {}

  write(chunk: string): void {
    let start = 0;
    let nl = chunk.indexOf('\n');
    while (nl !== -1) {
      this.take(chunk.slice(start, nl));
      this.endLine();
      start = nl + 1;
      nl = chunk.indexOf('\n', start);
    }
    if (start < chunk.length) this.take(chunk.slice(start));
  }

  end(): StreamSummary {
    this.endLine();
    return this.summary;
  }

  /** Adds a piece to the current line, or counts it once the line is too long to keep. */
  private take(piece: string): void {
    if (this.skipped > 0) {
      this.skipped += piece.length;
      return;
    }
    this.parts.push(piece);
    this.length += piece.length;
    if (this.length > MAX_LINE_CHARS) {
      this.skipped = this.length;
      this.parts = [];
      this.length = 0;
    }
  }

  private endLine(): void {
    if (this.skipped > 0) {
      this.summary.cutLines++;
      this.onProgress({ kind: 'cut', chars: this.skipped });
      this.skipped = 0;
      return;
    }
    const line = this.parts.length === 1 ? this.parts[0]! : this.parts.join('');
    this.parts = [];
    this.length = 0;
    this.line(line);
  }

  private line(raw: string): void {
    const line = raw.trim();
    if (!line) return;
    const msg = parseObjectLine(line);
    if (!msg) {
      this.summary.badLines++;
      this.onProgress({ kind: 'bad-line', text: line.slice(0, 200) });
      return;
    }
    if (typeof msg.session_id === 'string') this.summary.sessionId = msg.session_id;
    switch (msg.type) {
      case 'assistant':
        return this.assistant(msg);
      case 'user':
        return this.toolResults(msg);
      case 'result':
        return this.result(msg);
      case 'rate_limit_event':
        return this.rateLimit(msg);
      case 'system':
        if (msg.subtype === 'permission_denied')
          this.denied(msg.tool_use_id, msg.tool_name, undefined);
        // Claude Code retries a refused key ten times over minutes: the first retry says enough.
        else if (msg.subtype === 'api_retry' && msg.error === 'authentication_failed')
          this.fail(
            'auth',
            `the API refused the key (HTTP ${typeof msg.error_status === 'number' ? msg.error_status : 401})`,
          );
        else if (msg.subtype === 'api_retry') this.retry(msg);
        else if (msg.subtype === 'model_fallback') this.fallback(msg);
        return;
    }
  }

  /**
   * A denial, from a `system` `permission_denied` line as it happens, or
   * from the result's `permission_denials`: each tool call once.
   */
  private denied(id: unknown, tool: unknown, input: unknown): void {
    if (typeof id === 'string') {
      if (this.deniedIds.has(id)) return;
      this.deniedIds.add(id);
    }
    const known = typeof id === 'string' ? this.toolInputs.get(id) : undefined;
    const name = typeof tool === 'string' ? tool : (known?.tool ?? 'unknown tool');
    const denial: ToolDenial = {
      tool: name,
      input: asObject(input) ?? known?.input ?? {},
    };
    this.summary.denials.push(denial);
    this.onProgress({ kind: 'denied', denial });
  }

  /** Failed results of calls to tools the state does not have. */
  private toolResults(msg: Json): void {
    const tools = this.tools;
    const content = asObject(msg.message)?.content;
    if (!tools) return;
    for (const block of objectsOf(content)) {
      if (
        block.type !== 'tool_result' ||
        block.is_error !== true ||
        typeof block.tool_use_id !== 'string'
      )
        continue;
      const call = this.toolInputs.get(block.tool_use_id);
      if (call && !tools.has(call.tool) && !call.tool.startsWith('mcp__'))
        this.denied(block.tool_use_id, call.tool, call.input);
    }
  }

  private fail(kind: StreamFatal['kind'], message: string): void {
    if (this.summary.fatal) return;
    this.summary.fatal = { kind, message };
    this.onProgress({ kind: 'fatal' });
  }

  /** A request Claude Code retries: one refused for the account's rate or the API's load is a width signal. */
  private retry(msg: Json): void {
    const signal = limitSignal(msg);
    if (!signal) return;
    this.summary.limited.retries++;
    this.summary.limited.status = signal.status;
    this.onProgress({ kind: 'limited', ...signal });
  }

  /** Claude Code's `--fallback-model` took over: the API was overloaded, or did not have the model. */
  private fallback(msg: Json): void {
    this.summary.fellBack = true;
    const from = typeof msg.original_model === 'string' ? msg.original_model : 'the model';
    const to = typeof msg.fallback_model === 'string' ? msg.fallback_model : 'a fallback model';
    const why = msg.trigger === 'model_not_found' ? 'unavailable' : 'overloaded';
    this.onProgress({ kind: 'fallback', from, to, why });
  }

  private assistant(msg: Json): void {
    const message = asObject(msg.message);
    if (this.usage.note(message)) {
      this.summary.streamedCostUsd = this.usage.costUsd;
      this.onProgress({ kind: 'usage', costUsd: this.usage.costUsd });
    }
    // `<synthetic>`: Claude Code's own words (an error it gives up on), which no model answered.
    const model = message?.model;
    if (
      typeof model === 'string' &&
      model !== '<synthetic>' &&
      !this.summary.models.includes(model)
    )
      this.summary.models.push(model);
    // Claude Code gave up retrying a refused rate: transient, never the account's usage limit.
    if (msg.error === 'rate_limit' || msg.error === 'overloaded') {
      this.summary.limited.gaveUp = true;
      this.summary.limited.status ??= msg.error === 'rate_limit' ? 429 : 529;
    }
    const content = objectsOf(message?.content);
    if (msg.error === 'authentication_failed' || msg.error === 'model_not_found') {
      const text = content.find((b) => b.type === 'text' && typeof b.text === 'string')?.text;
      this.fail(
        msg.error === 'model_not_found' ? 'model' : 'auth',
        typeof text === 'string' ? text.split('\n')[0]! : String(msg.error),
      );
    }
    for (const block of content) {
      if (block.type === 'text' && typeof block.text === 'string') {
        const first = block.text.trim().split('\n')[0]!.trim();
        if (first) this.onProgress({ kind: 'text', text: first.slice(0, 160) });
      } else if (block.type === 'tool_use' && typeof block.name === 'string') {
        if (typeof block.id === 'string')
          this.toolInputs.set(block.id, { tool: block.name, input: asObject(block.input) ?? {} });
        this.onProgress({
          kind: 'tool',
          text: describeTool(block.name, asObject(block.input) ?? {}),
        });
      }
    }
  }

  private result(msg: Json): void {
    const s = this.summary;
    if (typeof msg.result === 'string') s.resultText = msg.result;
    s.isError = msg.is_error === true;
    if (typeof msg.total_cost_usd === 'number') s.totalCostUsd = msg.total_cost_usd;
    for (const d of objectsOf(msg.permission_denials))
      this.denied(d.tool_use_id, d.tool_name, d.tool_input);
    s.invocationTokens = tokens(msg.usage);
    const mu = asObject(msg.modelUsage);
    s.reportedTokens = mu
      ? Object.values(mu).reduce<number>((sum, m) => sum + tokens(m), 0)
      : s.invocationTokens;
    // Claude Code's limit notice is a short final text; a real answer that merely talks
    // about rate limits is long or carries a transition tag.
    if (msg.api_error_status === 429 || msg.api_error_status === 529) {
      s.limited.gaveUp = true;
      s.limited.status ??= msg.api_error_status;
    }
    // A refused rate's text ("Rate limit reached") is no usage limit: only the words of a spent account are.
    if (!s.limited.gaveUp && s.resultText) s.usageLimit ??= limitFromText(s.resultText);
    this.onProgress({ kind: 'result' });
  }

  private rateLimit(msg: Json): void {
    const info = asObject(msg.rate_limit_info) ?? msg;
    if (info.status !== 'rejected') return;
    this.summary.usageLimit = {
      message: 'usage limit reached',
      resetsAt: toEpochMs(info.resetsAt ?? info.resets_at),
    };
  }
}
