import { RaymondError } from '../../errors.js';
import { timeoutName, type Execution, type ExecutionRequest } from '../../executors/executor.js';
import { oneLine } from '../../executors/one-line.js';
import { mib } from '../../executors/output-cut.js';
import { invocationCost } from './cost.js';
import { MAX_LINE_CHARS, describeDenial } from './stream-reader.js';
import type { StreamFatal, StreamSummary } from './stream-summary.js';

/**
 * Claude Code's refusal, as root, of --dangerously-skip-permissions without
 * IS_SANDBOX=1: it refuses every turn the same way, so retrying is useless.
 */
const ROOT_REFUSAL = /--dangerously-skip-permissions cannot be used with root\/sudo privileges/;

/**
 * Claude Code refusing a flag (too old for `--tools`, say): commander's
 * words on stderr, the only place it says so (no stream has started).
 */
const FLAG_REFUSAL =
  /error: (unknown option '[^']+'|option '[^']+' argument '[^']*' is invalid[^\n]*)/;

/** What a person does about a failure that no retry cures. */
function fatalMessage(f: StreamFatal, req: ExecutionRequest): string {
  if (f.kind === 'model')
    return `Claude Code cannot use the model${req.model ? ` "${req.model}"` : ''} ("${oneLine(f.message, 200)}"): name one it has (--model, the config's model, a state's model:); retrying cannot help`;
  return `Claude Code is not logged in or its API key was refused ("${oneLine(f.message, 200)}"): run claude and /login, or set a valid ANTHROPIC_API_KEY, then resume the run; retrying cannot help`;
}

/** How a turn's process ended, from a cold run or a warm process. */
export interface TurnEnd {
  exitCode: number | null;
  signal: string | null;
  stderrTail: string;
  timedOut: boolean;
  aborted: boolean;
  spawnError?: string;
  /** CPU time the turn's process used, as sampled (ms). */
  cpuMs?: number;
}

/**
 * Turns what a turn printed and how its process ended into the execution,
 * or the error that says what went wrong. Failures that a retry may cure
 * throw ERR_AGENT_FAILED; a usage limit throws ERR_USAGE_LIMIT; both carry
 * what the turn cost so far in `details`. A refusal that no retry can cure
 * throws ERR_AGENT_REFUSED.
 */
export function settleClaudeTurn(
  s: StreamSummary,
  end: TurnEnd,
  req: ExecutionRequest,
  bin: string,
  where: string,
): Execution {
  // No result, so no total (stopped, killed, crashed): the messages it streamed are what it cost, never $0.
  const streamed = s.totalCostUsd === null && s.streamedCostUsd > 0;
  const costUsd = streamed
    ? s.streamedCostUsd
    : invocationCost(s, req.costBase, req.session?.kind === 'continue');
  const spent = {
    costUsd,
    // Claude Code's next total of the session counts these messages (measured on 2.1.330): its delta must not charge them again.
    sessionTotal: streamed ? (req.costBase ?? 0) + s.streamedCostUsd : s.totalCostUsd,
    session: s.sessionId,
    tokens: s.invocationTokens,
    cpuMs: end.cpuMs ?? 0,
    // Claude Code went through its fallback models already: the step has none left to try.
    ...(s.fellBack ? { fellBack: true } : {}),
  };
  // Said by the stream, so stopping the process for it (it would retry for minutes) is no abort of the user's.
  if (s.fatal)
    throw new RaymondError('ERR_AGENT_REFUSED', fatalMessage(s.fatal, req), {
      file: where,
      details: s.fatal.kind === 'model' ? { ...spent, unavailable: true } : spent,
    });
  if (end.aborted)
    throw new RaymondError('ERR_AGENT_FAILED', 'stopped', { file: where, details: spent });
  // The binary was found before; a start failure now (EAGAIN, ENOMEM) may pass, so it is retried.
  if (end.spawnError)
    throw new RaymondError('ERR_AGENT_FAILED', `could not start ${bin}: ${end.spawnError}`, {
      file: where,
      details: spent,
    });
  if (ROOT_REFUSAL.test(end.stderrTail)) {
    throw new RaymondError(
      'ERR_AGENT_REFUSED',
      `Claude Code refuses --dangerously-skip-permissions when run as root ("${oneLine(end.stderrTail, 200)}"); in a sandbox (a container or a VM) set IS_SANDBOX=1 in Raymond's environment, else run as another user or without --dangerously-skip-permissions`,
      { file: where, details: spent },
    );
  }
  const flag = FLAG_REFUSAL.exec(end.stderrTail);
  if (flag && s.sessionId === null) {
    throw new RaymondError(
      'ERR_AGENT_REFUSED',
      `Claude Code refused a flag Raymond gave it (${flag[1]}): update Claude Code (npm install -g @anthropic-ai/claude-code@latest), or leave out the key that asks for it; retrying cannot help`,
      { file: where, details: spent },
    );
  }
  if (s.usageLimit) {
    const when = s.usageLimit.resetsAt
      ? `; resets at ${new Date(s.usageLimit.resetsAt).toISOString()}`
      : '';
    throw new RaymondError(
      'ERR_USAGE_LIMIT',
      `Claude usage limit reached (${oneLine(s.usageLimit.message, 120)})${when}`,
      { file: where, details: { ...spent, resetsAt: s.usageLimit.resetsAt ?? null } },
    );
  }
  // Claude Code ran out of its own retries on a refused rate or load: the run retries the turn later.
  if (s.limited.gaveUp && s.resultText?.includes('<') !== true)
    throw new RaymondError(
      'ERR_AGENT_FAILED',
      `the API refused the turn for ${s.limited.status === 529 ? 'overload (529)' : 'its rate limit (429)'} after Claude Code's retries: ${oneLine(s.resultText ?? 'no text', 160)}`,
      { file: where, details: { ...spent, limited: s.limited.status ?? 429 } },
    );
  if (end.timedOut) {
    throw new RaymondError(
      'ERR_AGENT_FAILED',
      `Claude Code printed nothing for ${Math.round(req.timeoutMs / 1000)} s and was killed (${timeoutName(req)})`,
      { file: where, details: spent },
    );
  }
  if (s.isError)
    throw new RaymondError(
      'ERR_AGENT_FAILED',
      `Claude Code reported an error: ${oneLine(s.resultText ?? 'no text')}`,
      { file: where, details: spent },
    );
  if (s.resultText === null || s.sessionId === null) {
    const how =
      end.exitCode === null
        ? end.signal
          ? `was killed by ${end.signal}`
          : 'ended'
        : `exited with code ${end.exitCode}`;
    const stderr = end.stderrTail.trim() ? `: ${oneLine(end.stderrTail)}` : ' without a result';
    const cut =
      s.cutLines > 0 ? `; ${s.cutLines} line(s) over ${mib(MAX_LINE_CHARS)} were skipped` : '';
    // The reserved id exists already: an earlier attempt (or a killed run) began that session.
    const sessionInUse = /Session ID \S+ is already in use/.test(end.stderrTail);
    throw new RaymondError('ERR_AGENT_FAILED', `Claude Code ${how}${stderr}${cut}`, {
      file: where,
      details: { ...spent, sessionInUse },
    });
  }
  const out: Execution = {
    output: s.resultText,
    session: s.sessionId,
    costUsd,
    tokens: s.invocationTokens,
    cpuMs: end.cpuMs ?? 0,
  };
  if (s.denials.length > 0) out.denials = s.denials.map(describeDenial);
  if (s.totalCostUsd !== null) out.sessionTotal = s.totalCostUsd;
  if (s.models.length > 0) out.models = s.models;
  return out;
}
