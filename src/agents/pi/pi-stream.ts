import { limitStatusOf } from '../limit-status.js';
import { asObject, objectsOf, parseObjectLine, type JsonObject } from '../json-line.js';
import type { ToolDenial } from '../../executors/tool-denial.js';

/** What a pi turn's `--mode json` stream said, once it ended. */
export interface PiSummary {
  /** From the first `session` event. */
  sessionId: string | null;
  /** The text of the last assistant message of the last `agent_end`. */
  resultText: string | null;
  /** That message's `stopReason` and `errorMessage` (`error`, `aborted`: the turn failed). */
  stopReason: string | null;
  errorMessage: string | null;
  /** Sum of `usage.cost.total` of this turn's assistant messages: a forked session's copied history is never in the stream, so this is the turn's own cost. */
  costUsd: number;
  /** Sum of the same messages' `usage.totalTokens`. */
  tokens: number;
  /** The models of the same messages, in the order they first answered (pi prices each at its own). */
  models: string[];
  badLines: number;
  /** Calls to tools outside the state's `tools` (pi answers them as not found), in order. */
  denials: ToolDenial[];
}

/** What the reader passes on while the turn runs. */
export type PiProgress =
  | { kind: 'text'; text: string }
  | { kind: 'tool'; name: string }
  | { kind: 'denied'; denial: ToolDenial }
  /** pi retries a request its provider refused for the account's rate (429) or its load (529), after `delayMs`. */
  | { kind: 'limited'; status: 429 | 529; delayMs: number | null }
  /** The turn's cost so far grew: its messages' `usage.cost.total` added up. */
  | { kind: 'spend'; costUsd: number }
  | { kind: 'bad-line'; text: string };

const str = (v: unknown) => (typeof v === 'string' ? v : null);
const amount = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);

const textOf = (m: JsonObject) =>
  objectsOf(m.content)
    .filter((c) => c.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text as string)
    .join('');

/**
 * Reads pi's `--mode json` lines: the session id, each assistant message
 * as it ends (shown as progress), each message's cost, and the final
 * `agent_end` (pi retries on its own and emits one per attempt: the last
 * one counts).
 */
export class PiStreamReader {
  private buffer = '';
  private readonly s: PiSummary = {
    sessionId: null,
    resultText: null,
    stopReason: null,
    errorMessage: null,
    costUsd: 0,
    models: [],
    tokens: 0,
    badLines: 0,
    denials: [],
  };
  /** Each call's arguments by id, for its end. */
  private readonly calls = new Map<string, Record<string, unknown>>();

  constructor(
    private readonly onProgress: (p: PiProgress) => void,
    /** The state's `tools` in pi's names, when restricted: a failed call to another is reported as denied. */
    private readonly tools?: ReadonlySet<string>,
  ) {}

  write(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      this.line(this.buffer.slice(0, nl));
      this.buffer = this.buffer.slice(nl + 1);
    }
  }

  end(): PiSummary {
    if (this.buffer.trim()) this.line(this.buffer);
    this.buffer = '';
    return { ...this.s, denials: [...this.s.denials] };
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
      case 'session':
        if (this.s.sessionId === null && typeof e.id === 'string') this.s.sessionId = e.id;
        break;
      case 'message_end': {
        const m = asObject(e.message);
        if (m?.role !== 'assistant') break;
        const usage = asObject(m.usage);
        const cost = amount(asObject(usage?.cost)?.total);
        this.s.costUsd += cost;
        if (cost > 0) this.onProgress({ kind: 'spend', costUsd: this.s.costUsd });
        this.s.tokens += amount(usage?.totalTokens);
        const model = str(m.model);
        // An errored message answers nothing: pi names the model it asked for there too.
        if (model && m.stopReason !== 'error' && !this.s.models.includes(model))
          this.s.models.push(model);
        const said = textOf(m).trim();
        if (said) this.onProgress({ kind: 'text', text: said });
        break;
      }
      case 'tool_execution_start': {
        const args = asObject(e.args);
        if (typeof e.toolCallId === 'string' && args) this.calls.set(e.toolCallId, args);
        if (typeof e.toolName === 'string') this.onProgress({ kind: 'tool', name: e.toolName });
        break;
      }
      case 'tool_execution_end':
        if (
          this.tools &&
          e.isError === true &&
          typeof e.toolName === 'string' &&
          !this.tools.has(e.toolName)
        ) {
          const denial: ToolDenial = {
            tool: e.toolName,
            input:
              (typeof e.toolCallId === 'string' ? this.calls.get(e.toolCallId) : undefined) ?? {},
          };
          this.s.denials.push(denial);
          this.onProgress({ kind: 'denied', denial });
        }
        break;
      case 'auto_retry_start': {
        const status = limitStatusOf(str(e.errorMessage) ?? '');
        const delay = amount(e.delayMs);
        if (status) this.onProgress({ kind: 'limited', status, delayMs: delay > 0 ? delay : null });
        break;
      }
      case 'agent_end': {
        const last = objectsOf(e.messages)
          .filter((m) => m.role === 'assistant')
          .at(-1);
        this.s.resultText = last ? textOf(last) : null;
        this.s.stopReason = str(last?.stopReason);
        this.s.errorMessage = str(last?.errorMessage);
        break;
      }
    }
  }
}
