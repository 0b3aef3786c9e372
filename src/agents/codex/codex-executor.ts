import type { BackendRuntime } from '../agent-backend.js';
import { RaymondError } from '../../errors.js';
import type { Execution, ExecutionRequest, StateExecutor } from '../../executors/executor.js';
import { runProcess } from '../../executors/run-process.js';
import { denialEvent } from '../../executors/tool-denial.js';
import { codexArgs, codexPrompt, type CodexSession } from './codex-argv.js';
import { NO_USAGE, ownUsage, turnSpend } from './codex-cost.js';
import { RECORD_USAGE_LINE } from './codex-record.js';
import { codexMcpProblem } from './codex-mcp.js';
import type { CodexOptions } from './codex-options.js';
import { codexPriceOf } from './codex-prices.js';
import {
  findCodexSession,
  latestCodexSession,
  rolloutState,
  type RolloutState,
} from './codex-sessions.js';
import { settleCodexTurn } from './codex-settle.js';
import { CodexStreamReader } from './codex-stream.js';
import { preflightCodex } from './find-codex.js';
import { turnEnvironment } from '../../executors/step-key.js';

/** Which thread a turn starts from, in codex's terms. */
function sessionOf(req: ExecutionRequest, env: NodeJS.ProcessEnv, where: string): CodexSession {
  const plan = req.session ?? { kind: 'fresh' };
  switch (plan.kind) {
    case 'resume':
      return { kind: 'resume', id: plan.session };
    case 'branch':
      return { kind: 'fork', from: plan.from };
    case 'continue': {
      const id = latestCodexSession(req.agent.cwd, env);
      if (!id)
        throw new RaymondError(
          'ERR_AGENT_REFUSED',
          `--continue-session: no codex session was ever run in ${req.agent.cwd}`,
          { file: where },
        );
      return { kind: 'fork', from: id };
    }
    default:
      // codex takes no thread id of Raymond's choosing: the new one comes from `thread.started`.
      return { kind: 'fresh' };
  }
}

/** The workflow's codex options (none for a request of another backend's). */
function optionsOf(req: ExecutionRequest): CodexOptions {
  const spec = req.backend as { name: string; options?: unknown } | undefined;
  return spec?.name === 'codex' ? (spec.options ?? {}) : {};
}

/**
 * Runs markdown states of `backend: codex` workflows: one `codex exec
 * --json` process per turn, the prompt on stdin, a thread continued with
 * `exec resume ID` and branched with `exec fork ID`, the turn's cost from
 * its own tokens at the model's price (codex reports no money).
 *
 * codex retries a failed request itself (a provider's `request_max_retries`,
 * 4 by default, and `stream_max_retries`, 5: measured, a 500 took 30
 * requests and 26 s, a 401 six over 8 s); Raymond retries the turn after
 * that. A refused key or an unknown model stops codex at its first error.
 */
export function createCodexExecutor(runtime: BackendRuntime): StateExecutor {
  /** Models already warned about having no price. */
  const unpriced = new Set<string>();
  return {
    async execute(req: ExecutionRequest): Promise<Execution> {
      const env = { ...process.env, ...runtime.env, ...req.env };
      // Checked once per process (a callee workflow on codex when it first runs); found on PATH each turn.
      const bin = await preflightCodex(env);
      const where = req.scope.display(req.file);
      const agentId = req.agent.id;
      const grant = req.grant;
      const mcp = grant?.mcpConfig && codexMcpProblem(grant.mcpConfig, grant.mcpInherit === true);
      if (mcp) throw new RaymondError('ERR_AGENT_REFUSED', mcp, { file: where });
      const session = sessionOf(req, env, where);
      const from =
        session.kind === 'resume' ? session.id : session.kind === 'fork' ? session.from : undefined;
      const fromFile = from === undefined ? undefined : findCodexSession(from, env);
      // The thread's usage before this turn: what its end is measured from.
      const start =
        from === undefined ? NO_USAGE : fromFile ? rolloutState(fromFile).usage : undefined;
      // Stops codex when the stream says the turn cannot succeed.
      const hopeless = new AbortController();
      // codex's stream tells no usage before the turn ends; its rollout has each response's `token_count`.
      let rollout: string | undefined;
      const spentSoFar = (threadId: string | null, onSpend: (costUsd: number) => void) => {
        rollout ??= threadId === null ? undefined : findCodexSession(threadId, env);
        let now: RolloutState = {};
        try {
          if (rollout !== undefined) now = rolloutState(rollout);
        } catch {
          // Gone or unreadable for a moment: the turn's next item reads it again.
        }
        if (now.usage === undefined) return;
        const priced = codexPriceOf(req.model ?? now.model, runtime.prices);
        onSpend(turnSpend(start, now.usage, priced, req.costBase).costUsd);
      };
      const reader = new CodexStreamReader((p) => {
        if (p.kind === 'text') runtime.emit({ type: 'print', agentId, text: p.text });
        else if (p.kind === 'warning')
          runtime.emit({ type: 'detail', text: `[${agentId}] codex: ${p.text}` });
        else if (p.kind === 'denied') runtime.emit(denialEvent(agentId, req.file, p.denial));
        else if (p.kind === 'fatal') hopeless.abort();
        else if (p.kind === 'limited') req.onLimited?.(p.status, null);
        else if (p.kind === 'item') {
          if (req.onSpend) spentSoFar(p.threadId, req.onSpend);
        } else if (p.kind === 'bad-usage')
          runtime.emit({
            type: 'warning',
            text: `[${agentId}] ${where}: codex reported usage that cannot be priced (${p.text}); the turn is charged $0 and the run goes on`,
          });
        else
          runtime.emit({
            type: 'detail',
            text: `[${agentId}] skipped a line that is not JSON: ${p.text}`,
          });
      });
      const debug = req.debug?.();
      const result = await runProcess({
        file: bin,
        args: codexArgs({
          session,
          model: req.model,
          effort: req.effort,
          skipPermissions: runtime.skipPermissions,
          options: optionsOf(req),
          grant,
        }),
        cwd: req.agent.cwd,
        env: { ...runtime.env, ...turnEnvironment(req), ...req.env },
        signal: AbortSignal.any([req.signal, hopeless.signal]),
        inactivityMs: req.timeoutMs,
        input: codexPrompt(req.prompt ?? '', session, grant?.appendSystemPrompt),
        onStdout: (text) => {
          reader.write(text);
          debug?.stream(text);
        },
        onStderr: (text) => reader.writeStderr(text),
      });
      const s = reader.end();
      // The rollout as the turn left it: its usage when the turn failed, its model when none was named.
      const file = s.threadId === null ? undefined : findCodexSession(s.threadId, env);
      const after = file ? rolloutState(file) : {};
      const model = req.model ?? after.model;
      const priced = codexPriceOf(model, runtime.prices);
      const spend = turnSpend(start, s.usage ?? after.usage, priced, req.costBase);
      // The turn's own tokens, which codex's cumulative usage does not say: `raymond record` reads them.
      const own = ownUsage(start, s.usage ?? after.usage);
      if (own) debug?.stream(`${JSON.stringify({ type: RECORD_USAGE_LINE, usage: own })}\n`);
      debug?.finish();
      if (priced.unknown && spend.tokens > 0 && !unpriced.has(model ?? '')) {
        unpriced.add(model ?? '');
        const name = model ?? "codex's default model";
        runtime.emit({
          type: 'warning',
          text: `[${agentId}] ${where}: Codex ran ${name}, which has no price, so its turns count as $0: give it one in .raymond/config.toml as [raymond.prices."${model ?? 'MODEL'}"] input = ..., cached_input = ..., output = ... (USD per million tokens)`,
        });
      }
      const execution = settleCodexTurn(s, result, spend, req, where);
      // codex answers with the model it was given (a fallback's, when the step moved on), priced at it above.
      return model === undefined ? execution : { ...execution, models: [model] };
    },
  };
}
