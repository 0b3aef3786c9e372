import { asObject, objectsOf, parseObjectLine } from '../json-line.js';
import type { ToolDenial } from '../../executors/tool-denial.js';
import { codexFailureKind, codexLimitStatus } from './codex-failure.js';

/** Tokens as codex counts them: `input_tokens` includes the cached ones, `output_tokens` the reasoning ones. */
export interface CodexUsage {
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  reasoning_output_tokens: number;
}

/** A failure the stream already says no retry cures: a refused login or key, a model the provider does not have. */
export interface CodexFatal {
  kind: 'auth' | 'model';
  message: string;
}

/** What a `codex exec --json` turn said, once it ended. */
export interface CodexSummary {
  /** `thread.started`, always the first line: the session id (a fork's is new). */
  threadId: string | null;
  /** The last `agent_message` of the turn. */
  resultText: string | null;
  /** `turn.completed`'s usage: cumulative over the thread (a resumed thread's earlier turns, a fork's parent), not the turn's. */
  usage: CodexUsage | null;
  completed: boolean;
  /** `turn.failed`'s message. */
  failure: string | null;
  /** The last top-level `error` (codex retrying, or failing before a turn began). */
  lastError: string | null;
  fatal: CodexFatal | null;
  badLines: number;
  /** Calls codex refused under the turn's sandbox and approval policy, in order. */
  denials: ToolDenial[];
}

/** What the reader passes on while the turn runs. */
export type CodexProgress =
  | { kind: 'text'; text: string }
  /** A warning item (`Model metadata ... not found`) or codex retrying (`Reconnecting... 1/5 (...)`). */
  | { kind: 'warning'; text: string }
  | { kind: 'denied'; denial: ToolDenial }
  /** codex retries a request its provider refused for the account's rate (429) or its load (529). */
  | { kind: 'limited'; status: 429 | 529 }
  /** The turn cannot succeed (summary.fatal says why): codex would retry it for seconds; it may be stopped now. */
  | { kind: 'fatal' }
  /** An item of the turn completed (a message, a command, an edit): the model has answered once more. */
  | { kind: 'item'; threadId: string | null }
  /** `turn.completed`'s usage cannot be priced (what is wrong with it): the turn is charged $0. */
  | { kind: 'bad-usage'; text: string }
  | { kind: 'bad-line'; text: string };

type Json = Record<string, unknown>;

const USAGE_KEYS = [
  'input_tokens',
  'cached_input_tokens',
  'output_tokens',
  'reasoning_output_tokens',
] as const;

/** A token count Raymond can price: a whole number of tokens from 0 up to 2^53 (1e308 would cost Infinity). */
const isCount = (v: unknown): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/**
 * What is wrong with a usage object as codex prints it, if anything: a
 * count that is not a whole, non-negative, safe number (absent fields are 0).
 */
export function usageProblem(u: unknown): string | undefined {
  const o = asObject(u);
  if (!o)
    return u === undefined ? undefined : `a usage that is not an object (${JSON.stringify(u)})`;
  const bad = USAGE_KEYS.find((k) => o[k] !== undefined && !isCount(o[k]));
  return bad === undefined ? undefined : `${bad} ${JSON.stringify(o[bad]) ?? String(o[bad])}`;
}

/** A usage object as codex prints it (absent fields are 0); null when it is not one or holds an unusable count. */
export function readUsage(u: unknown): CodexUsage | null {
  const o = asObject(u);
  if (!o || usageProblem(o) !== undefined) return null;
  const count = (v: unknown) => (isCount(v) ? v : 0);
  return {
    input_tokens: count(o.input_tokens),
    cached_input_tokens: count(o.cached_input_tokens),
    output_tokens: count(o.output_tokens),
    reasoning_output_tokens: count(o.reasoning_output_tokens),
  };
}

/** The denial an item stands for, if codex refused it: a declined command or edit, an MCP call that wanted an approval exec cannot ask. */
const str = (v: unknown) => (typeof v === 'string' ? v : '');

function denialOf(item: Json): ToolDenial | undefined {
  if (item.type === 'command_execution' && item.status === 'declined')
    return { tool: 'shell', input: { command: str(item.command) } };
  if (item.type === 'file_change' && item.status === 'declined') {
    const first = objectsOf(item.changes)[0];
    return { tool: 'apply_patch', input: first ? { path: str(first.path) } : {} };
  }
  const error = asObject(item.error)?.message;
  if (item.type === 'mcp_tool_call' && typeof error === 'string' && /requires approval/.test(error))
    return {
      tool: `mcp__${str(item.server)}__${str(item.tool)}`,
      input: asObject(item.arguments) ?? {},
    };
  return undefined;
}

/**
 * Reads `codex exec --json` lines as they arrive: the thread id, each agent
 * message (shown as progress), warnings, denials, and how the turn ended.
 * A line that is not JSON is reported and skipped, never fatal.
 */
export class CodexStreamReader {
  private buffer = '';
  private stderrBuffer = '';
  private readonly s: CodexSummary = {
    threadId: null,
    resultText: null,
    usage: null,
    completed: false,
    failure: null,
    lastError: null,
    fatal: null,
    badLines: 0,
    denials: [],
  };

  constructor(private readonly onProgress: (p: CodexProgress) => void = () => {}) {}

  write(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      this.line(this.buffer.slice(0, nl));
      this.buffer = this.buffer.slice(nl + 1);
    }
  }

  /**
   * codex's stderr. With its approval policy `never` (exec's), a command
   * that asks to leave the sandbox is refused before it becomes an item:
   * the log line on stderr is the only trace of it.
   */
  writeStderr(chunk: string): void {
    this.stderrBuffer += chunk;
    let nl: number;
    while ((nl = this.stderrBuffer.indexOf('\n')) >= 0) {
      if (/reject command/.test(this.stderrBuffer.slice(0, nl)))
        this.deny({
          tool: 'shell',
          input: { description: 'a command that asked to run outside the sandbox' },
        });
      this.stderrBuffer = this.stderrBuffer.slice(nl + 1);
    }
  }

  end(): CodexSummary {
    if (this.buffer.trim()) this.line(this.buffer);
    this.buffer = '';
    return { ...this.s, denials: [...this.s.denials] };
  }

  private deny(denial: ToolDenial): void {
    this.s.denials.push(denial);
    this.onProgress({ kind: 'denied', denial });
  }

  /** An error codex reports: a refused key or an unknown model ends the turn's hopes at once. */
  private error(message: string): void {
    const limited = /^Reconnecting\.\.\./.test(message) ? codexLimitStatus(message) : null;
    if (limited) this.onProgress({ kind: 'limited', status: limited });
    const kind = codexFailureKind(message);
    if ((kind === 'auth' || kind === 'model') && !this.s.fatal) {
      // codex's retry wraps the error: `Reconnecting... 1/5 (unexpected status 401 ...)`.
      const retried = /^Reconnecting\.\.\. \d+\/\d+ \((.*)\)$/s.exec(message);
      this.s.fatal = { kind, message: retried ? retried[1]! : message };
      this.onProgress({ kind: 'fatal' });
    }
  }

  private line(raw: string): void {
    const text = raw.trim();
    if (!text) return;
    const e = parseObjectLine(text);
    if (!e) {
      this.s.badLines++;
      this.onProgress({ kind: 'bad-line', text: text.slice(0, 200) });
      return;
    }
    switch (e.type) {
      case 'thread.started':
        if (this.s.threadId === null && typeof e.thread_id === 'string')
          this.s.threadId = e.thread_id;
        return;
      case 'item.completed':
        return this.item(asObject(e.item) ?? {});
      case 'turn.completed': {
        this.s.completed = true;
        this.s.usage = readUsage(e.usage);
        const problem = usageProblem(e.usage);
        if (problem !== undefined) this.onProgress({ kind: 'bad-usage', text: problem });
        return;
      }
      case 'turn.failed': {
        const message = asObject(e.error)?.message;
        this.s.failure = typeof message === 'string' ? message : 'the turn failed';
        this.error(this.s.failure);
        return;
      }
      case 'error':
        if (typeof e.message === 'string') {
          this.s.lastError = e.message;
          this.onProgress({ kind: 'warning', text: e.message });
          this.error(e.message);
        }
        return;
    }
  }

  private item(item: Json): void {
    this.onProgress({ kind: 'item', threadId: this.s.threadId });
    if (item.type === 'agent_message' && typeof item.text === 'string') {
      this.s.resultText = item.text;
      const said = item.text.trim();
      if (said) this.onProgress({ kind: 'text', text: said });
      return;
    }
    // Not fatal: codex goes on (`Model metadata for ... not found`).
    if (item.type === 'error' && typeof item.message === 'string') {
      this.onProgress({ kind: 'warning', text: item.message });
      return;
    }
    const denial = denialOf(item);
    if (denial) this.deny(denial);
  }
}
