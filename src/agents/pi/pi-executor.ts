import { limitStatusOf, modelUnavailable } from '../limit-status.js';
import type { BackendRuntime } from '../agent-backend.js';
import { RaymondError } from '../../errors.js';
import {
  timeoutName,
  type Execution,
  type ExecutionRequest,
  type StateExecutor,
} from '../../executors/executor.js';
import { oneLine } from '../../executors/one-line.js';
import { runProcess } from '../../executors/run-process.js';
import { denialEvent, describeDenial } from '../../executors/tool-denial.js';
import type { PiOptions } from './pi-options.js';
import { piArgs, piTools, type PiSession } from './pi-argv.js';
import { preflightPi } from './find-pi.js';
import { findPiSession, latestPiSession } from './pi-sessions.js';
import { PiStreamReader, type PiSummary } from './pi-stream.js';
import { turnEnvironment } from '../../executors/step-key.js';

/** Which session a turn starts from, in pi's terms. */
function sessionOf(
  req: ExecutionRequest,
  options: PiOptions,
  env: NodeJS.ProcessEnv,
  where: string,
): PiSession {
  const plan = req.session ?? { kind: 'fresh' };
  switch (plan.kind) {
    case 'resume':
      return { kind: 'resume', ref: findPiSession(plan.session, options, env) ?? plan.session };
    case 'branch':
      return { kind: 'fork', from: plan.from };
    case 'continue': {
      const id = latestPiSession(req.agent.cwd, options, env);
      if (!id)
        throw new RaymondError(
          'ERR_AGENT_REFUSED',
          `--continue-session: no pi session was ever run in ${req.agent.cwd}`,
          { file: where },
        );
      return { kind: 'fork', from: id };
    }
    default:
      // pi takes no session id of its own choosing: the new session's id comes from its stream.
      return { kind: 'fresh' };
  }
}

/** The turn's execution, or the error that says what went wrong; failures a retry may cure are ERR_AGENT_FAILED, as Claude Code's. */
function settle(
  s: PiSummary,
  end: Awaited<ReturnType<typeof runProcess>>,
  req: ExecutionRequest,
  where: string,
): Execution {
  const spent = {
    costUsd: s.costUsd,
    session: s.sessionId,
    sessionTotal: null,
    tokens: s.tokens,
    cpuMs: end.cpuMs,
  };
  const fail = (message: string, limited?: 429 | 529, unavailable = false) =>
    new RaymondError('ERR_AGENT_FAILED', message, {
      file: where,
      details: {
        ...spent,
        ...(limited ? { limited } : {}),
        ...(unavailable ? { unavailable } : {}),
      },
    });
  if (end.aborted) throw fail('stopped');
  if (end.spawnError) throw fail(`could not start pi: ${end.spawnError}`);
  if (end.timedOut)
    throw fail(
      `pi printed nothing for ${Math.round(req.timeoutMs / 1000)} s and was killed (${timeoutName(req)})`,
    );
  const stderr = end.stderrTail.trim() ? `: ${oneLine(end.stderrTail)}` : '';
  if (end.exitCode !== 0)
    throw fail(
      `pi ${end.exitCode === null ? `was killed by ${end.signal}` : `exited with code ${end.exitCode}`}${stderr}`,
    );
  // In --mode json pi exits 0 when the model's API failed: the last message says so.
  // Refused for rate or load after pi's retries: the run tries the turn again, uncounted.
  if (s.stopReason === 'error' || s.stopReason === 'aborted')
    throw fail(
      `pi reported an error: ${oneLine(s.errorMessage ?? s.stopReason)}`,
      limitStatusOf(s.errorMessage ?? '') ?? undefined,
      modelUnavailable(s.errorMessage ?? ''),
    );
  if (s.resultText === null || s.sessionId === null)
    throw fail(`pi ended without a reply${stderr}`);
  const out: Execution = {
    output: s.resultText,
    session: s.sessionId,
    costUsd: s.costUsd,
    tokens: s.tokens,
    cpuMs: end.cpuMs,
  };
  if (s.denials.length > 0) out.denials = s.denials.map(describeDenial);
  if (s.models.length > 0) out.models = s.models;
  return out;
}

/**
 * Runs markdown states of `backend: pi` workflows: one `pi --mode json`
 * process per turn, the prompt on stdin (never an argument: pi would read
 * `@file` from it, or a flag), the session continued with `--session` and
 * branched with `--fork`, the cost summed from the stream's messages.
 */
export function createPiExecutor(o: BackendRuntime): StateExecutor {
  return {
    async execute(req: ExecutionRequest): Promise<Execution> {
      const env = { ...process.env, ...o.env };
      // Checked once per process (a callee workflow on pi when it first runs); found on PATH each turn.
      const bin = await preflightPi(env);
      const where = req.scope.display(req.file);
      const options: PiOptions = req.backend?.name === 'pi' ? (req.backend.options ?? {}) : {};
      const agentId = req.agent.id;
      const args = piArgs({
        session: sessionOf(req, options, env, where),
        model: req.model,
        thinking: req.effort,
        skipPermissions: o.skipPermissions,
        options,
        tools: req.grant?.tools,
        appendSystemPrompt: req.grant?.appendSystemPrompt,
      });
      const reader = new PiStreamReader(
        (p) => {
          if (p.kind === 'text') o.emit({ type: 'print', agentId, text: p.text });
          else if (p.kind === 'bad-line')
            o.emit({
              type: 'detail',
              text: `[${agentId}] skipped a line that is not JSON: ${p.text}`,
            });
          else if (p.kind === 'denied') o.emit(denialEvent(agentId, req.file, p.denial));
          else if (p.kind === 'limited') req.onLimited?.(p.status, p.delayMs);
          else if (p.kind === 'spend') req.onSpend?.(p.costUsd);
        },
        req.grant?.tools && new Set(piTools(req.grant.tools)),
      );
      const debug = req.debug?.();
      const result = await runProcess({
        file: bin,
        args,
        cwd: req.agent.cwd,
        env: { ...o.env, ...turnEnvironment(req), ...req.env, PI_SKIP_VERSION_CHECK: '1' },
        signal: req.signal,
        inactivityMs: req.timeoutMs,
        input: req.prompt ?? '',
        onStdout: (text) => {
          reader.write(text);
          debug?.stream(text);
        },
      });
      debug?.finish();
      return settle(reader.end(), result, req, where);
    },
  };
}
