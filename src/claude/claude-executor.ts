import type { RunEventSink } from '../../machines/run-events.js';
import { RaymondError } from '../errors.js';
import type { Execution, ExecutionRequest, StateExecutor } from '../executors/executor.js';
import { mib } from '../executors/output-cut.js';
import { runProcess } from '../executors/run-process.js';
import { claudeArgs, promptOnStdin } from './claude-argv.js';
import { invocationCost } from './cost.js';
import { findClaude } from './find-claude.js';
import { MAX_LINE_CHARS, StreamReader } from './stream-reader.js';

export interface ClaudeOptions {
  /** `--claude-bin`; else `claude` on PATH. */
  bin?: string | undefined;
  skipPermissions: boolean;
  /** The run's event stream: Claude's messages are shown as they arrive. */
  emit: RunEventSink;
}

function oneLine(text: string, max = 300): string {
  const t = text.trim().split(/\r?\n/).map((l) => l.trim()).filter(Boolean).join(' | ');
  return t.length > max ? `${t.slice(0, max - 3)}...` : t;
}

/**
 * Claude Code's refusal, as root, of --dangerously-skip-permissions without
 * IS_SANDBOX=1: it refuses every turn the same way, so retrying is useless.
 */
const ROOT_REFUSAL = /--dangerously-skip-permissions cannot be used with root\/sudo privileges/;

/**
 * Runs one Claude Code turn for a markdown state. Failures that a retry may
 * cure throw ERR_CLAUDE_FAILED; a usage limit throws ERR_USAGE_LIMIT; both
 * carry what the turn cost so far in `details`. A refusal that no retry can
 * cure throws ERR_CLAUDE_REFUSED.
 */
export function createClaudeExecutor(options: ClaudeOptions): StateExecutor {
  let bin: string | undefined;
  return {
    async execute(req: ExecutionRequest): Promise<Execution> {
      bin ??= findClaude(options.bin);
      const where = req.scope.display(req.file);
      const agentId = req.agent.id;
      const reader = new StreamReader((p) => {
        if (p.kind === 'bad-line') options.emit({ type: 'detail', text: `[${agentId}] skipped a line that is not JSON: ${p.text}` });
        else if (p.kind === 'cut') options.emit({ type: 'warning', text: `[${agentId}] ${where}: output was cut: skipped a line of ${mib(p.chars)} from Claude Code (at most ${mib(MAX_LINE_CHARS)} are read)` });
        else options.emit({ type: 'print', agentId, text: p.text });
      });
      const debug = req.debug?.();
      const prompt = req.prompt ?? '';
      const result = await runProcess({
        file: bin,
        args: claudeArgs({ prompt, session: req.session ?? { kind: 'fresh' }, model: req.model, effort: req.effort, skipPermissions: options.skipPermissions }),
        ...(promptOnStdin(prompt) ? { input: prompt } : {}),
        cwd: req.agent.cwd,
        // A Raymond run inside a Claude Code session must not look nested to the child.
        env: { CLAUDECODE: undefined },
        signal: req.signal,
        inactivityMs: req.timeoutMs,
        onStdout: (text) => {
          reader.write(text);
          debug?.stream(text);
        },
      });
      debug?.finish();
      const s = reader.end();
      const costUsd = invocationCost(s, req.costBase);
      const spent = { costUsd, sessionTotal: s.totalCostUsd, session: s.sessionId };
      if (result.aborted) throw new RaymondError('ERR_CLAUDE_FAILED', 'stopped', { file: where, details: spent });
      // The binary was found before; a start failure now (EAGAIN, ENOMEM) may pass, so it is retried.
      if (result.spawnError) throw new RaymondError('ERR_CLAUDE_FAILED', `could not start ${bin}: ${result.spawnError}`, { file: where, details: spent });
      if (ROOT_REFUSAL.test(result.stderrTail)) {
        throw new RaymondError(
          'ERR_CLAUDE_REFUSED',
          `Claude Code refuses --dangerously-skip-permissions when run as root ("${oneLine(result.stderrTail, 200)}"); in a sandbox (a container or a VM) set IS_SANDBOX=1 in Raymond's environment, else run as another user or without --dangerously-skip-permissions`,
          { file: where, details: spent },
        );
      }
      if (s.usageLimit) {
        const when = s.usageLimit.resetsAt ? `; resets at ${new Date(s.usageLimit.resetsAt).toISOString()}` : '';
        throw new RaymondError('ERR_USAGE_LIMIT', `Claude usage limit reached (${oneLine(s.usageLimit.message, 120)})${when}`, { file: where, details: { ...spent, resetsAt: s.usageLimit.resetsAt ?? null } });
      }
      if (result.timedOut) {
        throw new RaymondError('ERR_CLAUDE_FAILED', `Claude Code printed nothing for ${Math.round(req.timeoutMs / 1000)} s and was killed (--timeout)`, { file: where, details: spent });
      }
      if (s.isError) {
        throw new RaymondError('ERR_CLAUDE_FAILED', `Claude Code reported an error: ${oneLine(s.resultText ?? 'no text')}`, { file: where, details: spent });
      }
      if (s.resultText === null || s.sessionId === null) {
        const how = result.exitCode === null ? `was killed by ${result.signal}` : `exited with code ${result.exitCode}`;
        const stderr = result.stderrTail.trim() ? `: ${oneLine(result.stderrTail)}` : ' without a result';
        const cut = s.cutLines > 0 ? `; ${s.cutLines} line(s) over ${mib(MAX_LINE_CHARS)} were skipped` : '';
        // The reserved id exists already: an earlier attempt (or a killed run) began that session.
        const sessionInUse = /Session ID \S+ is already in use/.test(result.stderrTail);
        throw new RaymondError('ERR_CLAUDE_FAILED', `Claude Code ${how}${stderr}${cut}`, { file: where, details: { ...spent, sessionInUse } });
      }
      const out: Execution = { output: s.resultText, session: s.sessionId, costUsd };
      if (s.totalCostUsd !== null) out.sessionTotal = s.totalCostUsd;
      return out;
    },
  };
}
