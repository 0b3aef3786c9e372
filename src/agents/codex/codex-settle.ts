import { RaymondError } from '../../errors.js';
import { timeoutName, type Execution, type ExecutionRequest } from '../../executors/executor.js';
import { oneLine } from '../../executors/one-line.js';
import type { ProcessResult } from '../../executors/run-process.js';
import { describeDenial } from '../../executors/tool-denial.js';
import {
  codexFailureKind,
  codexLimitStatus,
  codexResetAt,
  type CodexFailureKind,
} from './codex-failure.js';
import type { TurnSpend } from './codex-cost.js';
import type { CodexSummary } from './codex-stream.js';

/**
 * codex refusing to begin: its config (a provider it does not know, a value
 * it rejects), its CODEX_HOME, the thread to resume or fork. Said on stderr
 * before any thread starts; the same turn would be refused again.
 */
const START_REFUSAL =
  /Error loading config\.toml[^\n]*|Model provider `[^`]*` not found|no rollout found for thread id \S+|invalid paginated history lineage[^\n]*|CODEX_HOME points to[^\n]*|error: unexpected argument[^\n]*|error: invalid value[^\n]*/;

/** codex's stderr without its backtrace and its warning about PATH aliases (harmless, under a temporary CODEX_HOME). */
function stderrOf(tail: string): string {
  const cut = tail.indexOf('Stack backtrace:');
  return oneLine(
    (cut < 0 ? tail : tail.slice(0, cut))
      .split('\n')
      .filter((l) => !/PATH aliases/.test(l))
      .join('\n'),
  );
}

/** The one line a person reads about a failure no retry cures. */
function refusalMessage(kind: string, message: string, req: ExecutionRequest): string {
  const said = `"${oneLine(message, 200)}"`;
  if (kind === 'auth')
    return `Codex is not logged in or its API key was refused (${said}): run codex login, or set the API key variable its provider names (env_key), then resume the run; retrying cannot help`;
  if (kind === 'model')
    return `Codex cannot use the model${req.model ? ` "${req.model}"` : ''} (${said}): name one its provider has (--model, the config's model, a state's model:); retrying cannot help`;
  return `Codex's provider refused the request (${said}); retrying cannot help`;
}

/**
 * Turns what a codex turn printed and how its process ended into the
 * execution, or the error that says what went wrong, as Claude Code's: what
 * a retry may cure is ERR_AGENT_FAILED (a rate limit, a server error, a
 * stream cut short, a crash, a timeout); a usage limit is ERR_USAGE_LIMIT
 * (with its reset time when codex gives one); what no retry cures is
 * ERR_AGENT_REFUSED (a refused key, an unknown model, a configuration codex
 * rejects, a thread it does not have). Each carries the turn's spend.
 */
export function settleCodexTurn(
  s: CodexSummary,
  end: ProcessResult,
  spend: TurnSpend,
  req: ExecutionRequest,
  where: string,
): Execution {
  const spent = { ...spend, session: s.threadId, cpuMs: end.cpuMs };
  const error = (code: 'ERR_AGENT_FAILED' | 'ERR_AGENT_REFUSED', message: string) =>
    new RaymondError(code, message, { file: where, details: spent });
  // An unknown model is no retry's to cure, but a fallback model may answer (markdown-turns.ts).
  const refused = (kind: CodexFailureKind, message: string) =>
    new RaymondError('ERR_AGENT_REFUSED', refusalMessage(kind, message, req), {
      file: where,
      details: kind === 'model' ? { ...spent, unavailable: true } : spent,
    });
  // Said by the stream, so stopping codex for it (it would retry for seconds) is no abort of the user's.
  if (s.fatal) throw refused(s.fatal.kind, s.fatal.message);
  if (end.aborted) throw error('ERR_AGENT_FAILED', 'stopped');
  if (end.spawnError) throw error('ERR_AGENT_FAILED', `could not start codex: ${end.spawnError}`);
  if (end.timedOut)
    throw error(
      'ERR_AGENT_FAILED',
      `Codex printed nothing for ${Math.round(req.timeoutMs / 1000)} s and was killed (${timeoutName(req)})`,
    );
  const failure = s.failure ?? (end.exitCode !== 0 ? s.lastError : null);
  if (failure !== null) {
    const kind = codexFailureKind(failure);
    if (kind === 'usage') {
      const resetsAt = codexResetAt(failure);
      const when = resetsAt ? `; resets at ${new Date(resetsAt).toISOString()}` : '';
      throw new RaymondError(
        'ERR_USAGE_LIMIT',
        `Codex usage limit reached (${oneLine(failure, 160)})${when}`,
        { file: where, details: { ...spent, resetsAt: resetsAt ?? null } },
      );
    }
    if (kind !== undefined) throw refused(kind, failure);
    const limited = codexLimitStatus(failure);
    // Refused for rate or load after codex's retries: the run tries the turn again, uncounted.
    if (limited)
      throw new RaymondError('ERR_AGENT_FAILED', `Codex reported an error: ${oneLine(failure)}`, {
        file: where,
        details: { ...spent, limited },
      });
    throw error('ERR_AGENT_FAILED', `Codex reported an error: ${oneLine(failure)}`);
  }
  const stderr = stderrOf(end.stderrTail);
  const refusal = s.threadId === null ? START_REFUSAL.exec(end.stderrTail) : null;
  if (refusal)
    throw error(
      'ERR_AGENT_REFUSED',
      `codex refused to start the turn (${oneLine(refusal[0], 240)}); retrying cannot help`,
    );
  if (end.exitCode !== 0 || !s.completed || s.threadId === null) {
    const how =
      end.exitCode === null
        ? `was killed by ${end.signal}`
        : end.exitCode !== 0
          ? `exited with code ${end.exitCode}`
          : 'ended without finishing the turn';
    throw error('ERR_AGENT_FAILED', `codex ${how}${stderr ? `: ${stderr}` : ''}`);
  }
  const out: Execution = {
    // A turn that ends with no message (the model refused, say) is a reply without tags: the step reminds.
    output: s.resultText ?? '',
    session: s.threadId,
    costUsd: spend.costUsd,
    tokens: spend.tokens,
    cpuMs: end.cpuMs,
  };
  if (spend.sessionTotal !== null) out.sessionTotal = spend.sessionTotal;
  if (s.denials.length > 0) out.denials = s.denials.map(describeDenial);
  return out;
}
