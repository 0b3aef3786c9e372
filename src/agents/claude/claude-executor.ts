import type { RunEventSink } from '../../../machines/run-events.js';
import { denialEvent } from '../../executors/tool-denial.js';
import type { Execution, ExecutionRequest, StateExecutor } from '../../executors/executor.js';
import { mib } from '../../executors/output-cut.js';
import { grantKey } from '../../executors/resolved-grant.js';
import { toolName } from '../../language/grant.js';
import { runProcess } from '../../executors/run-process.js';
import { claudeArgs, promptOnStdin } from './claude-argv.js';
import { claudeCli } from './claude-version.js';
import { findClaude } from './find-claude.js';
import { settleClaudeTurn } from './claude-settle.js';
import { MAX_LINE_CHARS, StreamReader } from './stream-reader.js';
import type { WarmProcess } from './warm-process.js';
import { turnEnvironment } from '../../executors/step-key.js';
import type { WarmSessions } from './warm-sessions.js';

export interface ClaudeOptions {
  /** `--claude-bin`; else `claude` on PATH. */
  bin?: string;
  skipPermissions: boolean;
  permissionMode?: string;
  disallowedTools?: readonly string[];
  /** The run's event stream: Claude's messages are shown as they arrive. */
  emit: RunEventSink;
  /** Live processes kept between an agent's turns in one session; absent with --no-warm. */
  warm?: WarmSessions;
  /** The run's own environment variables (a server run's `environment`), given to every turn. */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Runs Claude Code turns for markdown states. With `warm`, a turn that goes
 * on in a session whose process is still alive is one more message to that
 * process; any other starts one (with the same flags as a cold turn), which
 * stays for the session's next turn. Without, each turn is its own `claude -p`.
 */
export function createClaudeExecutor(options: ClaudeOptions): StateExecutor {
  let bin: string | undefined;
  return {
    async execute(req: ExecutionRequest): Promise<Execution> {
      bin ??= findClaude(options.bin);
      // Learnt once per process: a flag this Claude Code does not list is not passed.
      const { flags } = await claudeCli(bin, { ...process.env, ...options.env });
      const where = req.scope.display(req.file);
      const agentId = req.agent.id;
      let proc: WarmProcess | undefined;
      // Stops the turn's process when the stream says it cannot succeed.
      const hopeless = new AbortController();
      const reader = new StreamReader(
        (p) => {
          if (p.kind === 'result') proc?.endTurn();
          else if (p.kind === 'fatal') {
            proc?.kill();
            hopeless.abort();
          } else if (p.kind === 'bad-line')
            options.emit({
              type: 'detail',
              text: `[${agentId}] skipped a line that is not JSON: ${p.text}`,
            });
          else if (p.kind === 'denied') options.emit(denialEvent(agentId, req.file, p.denial));
          else if (p.kind === 'limited') req.onLimited?.(p.status, p.delayMs);
          else if (p.kind === 'usage') req.onSpend?.(p.costUsd);
          else if (p.kind === 'fallback')
            options.emit({
              type: 'detail',
              text: `[${agentId}] ${where}: ${p.from} is ${p.why}; ${p.to} answers (fallback_models)`,
            });
          else if (p.kind === 'cut')
            options.emit({
              type: 'warning',
              text: `[${agentId}] ${where}: output was cut: skipped a line of ${mib(p.chars)} from Claude Code (at most ${mib(MAX_LINE_CHARS)} are read)`,
            });
          else options.emit({ type: 'print', agentId, text: p.text });
        },
        req.grant?.tools && new Set(req.grant.tools.map(toolName)),
      );
      const debug = req.debug?.();
      const onStdout = (text: string) => {
        reader.write(text);
        debug?.stream(text);
      };
      const prompt = req.prompt ?? '';
      const plan = req.session ?? { kind: 'fresh' };
      const invocation = {
        prompt,
        session: plan,
        model: req.model,
        fallbackModels: req.fallbackModels,
        effort: req.effort,
        skipPermissions: options.skipPermissions,
        permissionMode: options.permissionMode,
        disallowedTools: options.disallowedTools,
        grant: req.grant,
        flags,
      };
      // A live process keeps the environment it started with: a turn with its own (its trace context) starts its own.
      const warm = req.env ? undefined : options.warm;
      const turnEnv = turnEnvironment(req);
      if (warm) {
        const fit = {
          cwd: req.agent.cwd,
          model: req.model,
          effort: req.effort,
          grant: `${grantKey(req.grant)}\n${req.fallbackModels?.join(',') ?? ''}`,
          agent: req.agent.id,
        };
        const live = plan.kind === 'resume' ? warm.take(plan.session, fit) : undefined;
        proc =
          live ?? warm.start(bin, claudeArgs({ ...invocation, prompt: undefined }), fit, turnEnv);
        const t = await proc.turn({
          prompt,
          onStdout,
          signal: req.signal,
          inactivityMs: req.timeoutMs,
          model: req.model,
        });
        debug?.finish();
        try {
          const out = settleClaudeTurn(
            reader.end(),
            { ...t, timedOut: t.ended === 'timeout', aborted: t.ended === 'aborted' },
            req,
            bin,
            where,
          );
          if (t.ended === 'result') warm.keep(out.session!, proc);
          else warm.drop(proc);
          return out;
        } catch (err) {
          warm.drop(proc);
          throw err;
        }
      }
      const result = await runProcess({
        file: bin,
        args: claudeArgs(invocation),
        ...(promptOnStdin(prompt) ? { input: prompt } : {}),
        cwd: req.agent.cwd,
        // A Raymond run inside a Claude Code session must not look nested to the child.
        env: { ...options.env, ...turnEnv, ...req.env, CLAUDECODE: undefined },
        signal: AbortSignal.any([req.signal, hopeless.signal]),
        inactivityMs: req.timeoutMs,
        onStdout,
      });
      debug?.finish();
      return settleClaudeTurn(reader.end(), result, req, bin, where);
    },
    endSession(session) {
      options.warm?.release(session);
    },
    close() {
      options.warm?.close();
    },
  };
}
