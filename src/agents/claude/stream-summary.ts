import type { ToolDenial } from '../../executors/tool-denial.js';

/** What Raymond takes from one `claude -p --output-format stream-json` run. */
export interface StreamSummary {
  sessionId: string | null;
  /** `result` of the last result message. */
  resultText: string | null;
  isError: boolean;
  totalCostUsd: number | null;
  /** Tokens of this invocation alone (`usage`). */
  invocationTokens: number;
  /** Tokens over the whole session history as Claude Code reports them (`modelUsage`). */
  reportedTokens: number;
  /** Set when the stream says a usage limit was hit: the account is spent until `resetsAt`. */
  usageLimit: { resetsAt?: number; message: string } | null;
  /**
   * Requests the API refused for its rate (429) or for overload (529) that
   * Claude Code retried; `gaveUp` when it ran out of retries and the turn
   * ended on it. Transient: never a usage limit.
   */
  limited: { retries: number; status: number | null; gaveUp: boolean };
  /** Lines that were not JSON (logged, skipped). */
  badLines: number;
  /** Lines longer than MAX_LINE_CHARS (skipped unread). */
  cutLines: number;
  /** Tool calls Claude Code's permissions refused, in the order they happened. */
  denials: ToolDenial[];
  /** A failure no retry can cure, as the stream's structured fields say: not logged in or a refused key, an unknown model. */
  fatal: StreamFatal | null;
  /** The models that answered this turn, in the order they first did (`message.model` of its replies). */
  models: string[];
  /** Claude Code went on with a fallback model (`--fallback-model`) in this turn. */
  fellBack: boolean;
  /** The turn's messages as they streamed (each at its latest usage), priced by the table: what a turn without a result cost. */
  streamedCostUsd: number;
}

/** Why a turn can never succeed as it is: `auth` (not logged in, a refused API key) or `model` (a model the API does not know). */
export interface StreamFatal {
  kind: 'auth' | 'model';
  /** Claude Code's own words, when it gave some. */
  message: string;
}

/** Progress events surfaced while the turn runs; `cut`: a line of `chars` characters was skipped unread. */
export type StreamProgress =
  | { kind: 'text'; text: string }
  | { kind: 'tool'; text: string }
  | { kind: 'denied'; denial: ToolDenial }
  /** The turn cannot succeed (summary.fatal says why): the process may be stopped now rather than left to retry. */
  | { kind: 'fatal' }
  | { kind: 'bad-line'; text: string }
  | { kind: 'cut'; chars: number }
  /** The API refused a request for its rate (429) or overload (529); Claude Code retries it after `delayMs`. */
  | { kind: 'limited'; status: 429 | 529; delayMs: number | null }
  /** Claude Code went on with the next of its fallback models: `from` was overloaded (529) or unavailable. */
  | { kind: 'fallback'; from: string; to: string; why: 'overloaded' | 'unavailable' }
  /** The turn's cost so far grew (or changed): its messages' usage priced by the table. */
  | { kind: 'usage'; costUsd: number }
  | { kind: 'result' };
