import { limitStatusOf } from '../limit-status.js';
/**
 * What codex's failure messages mean, read from its words: `exec --json`
 * gives a failed turn as `turn.failed {error: {message}}` (and each retry as
 * a top-level `error`), text only. The words are codex 0.171's, measured
 * against a scripted server for each status (see test/agents/codex/).
 */

/** What a failure says about retrying: `usage` waits for a reset; `auth` and `model` are never cured by a retry. */
export type CodexFailureKind = 'usage' | 'auth' | 'model' | 'policy';

const KINDS: Array<[CodexFailureKind, RegExp]> = [
  // 429 `usage_limit_reached` (codex's UsageLimitReachedError, ' or ’ by version), credits, spend caps, quota.
  [
    'usage',
    /hit your usage limit|usage limit has been reached|out of credits|hit your spend cap|Quota exceeded/i,
  ],
  // 401/403 as codex words an unexpected status; a provider's key variable unset; no login.
  [
    'auth',
    /unexpected status (401|403)\b|Missing environment variable|not logged in|Please log ?in|refresh token/i,
  ],
  // 400/404 `model_not_found`: codex gives the API's own message.
  [
    'model',
    /\bmodel\b.*\b(does not exist|not found|not supported|do(es)? not have access)|model_not_found/i,
  ],
  // 400 `cyber_policy`: the provider refuses the request itself.
  ['policy', /flagged for possible cybersecurity risk/i],
];

/** What kind of failure `message` is, if it is one no retry of codex's or Raymond's can cure by itself. */
export function codexFailureKind(message: string): CodexFailureKind | undefined {
  return KINDS.find(([, re]) => re.test(message))?.[0];
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** codex's reset time: `try again at 8:06 PM.` (today) or `try again at Nov 29th, 2026 8:06 PM.` */
const TRY_AGAIN =
  /try again at (?:([A-Za-z]{3})[a-z]* (\d{1,2})(?:st|nd|rd|th)?, (\d{4}) )?(\d{1,2}):(\d{2}) ?([AP]M)/i;

/**
 * When a usage limit resets, from codex's words. codex 0.171 has the API's
 * `resets_at` but prints it only in the local time of its process (chrono's
 * `Local`), which is this process's zone too: the run gives codex its own
 * environment. A time without a date is today's, or tomorrow's once it has
 * passed. Undefined when codex says `try again later`.
 */
export function codexResetAt(message: string, now = Date.now()): number | undefined {
  const m = TRY_AGAIN.exec(message);
  if (!m) return undefined;
  let hour = Number(m[4]) % 12;
  if (m[6]!.toUpperCase() === 'PM') hour += 12;
  const minute = Number(m[5]);
  const today = new Date(now);
  if (m[1] !== undefined) {
    const month = MONTHS.indexOf(m[1].toLowerCase());
    if (month < 0) return undefined;
    return new Date(Number(m[3]), month, Number(m[2]), hour, minute).getTime();
  }
  const at = new Date(today.getFullYear(), today.getMonth(), today.getDate(), hour, minute);
  // codex prints minutes: a reset within the last minute is this minute's, not tomorrow's.
  if (at.getTime() < now - 60_000) at.setDate(at.getDate() + 1);
  return at.getTime();
}

/**
 * A failure or a retry codex reports for the account's rate (429) or the
 * provider's load (529, 503 overloaded): a signal for the account's width,
 * transient, never a usage limit.
 */
export function codexLimitStatus(message: string): 429 | 529 | null {
  return codexFailureKind(message) === undefined ? limitStatusOf(message) : null;
}
