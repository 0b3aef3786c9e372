import type { BackendRuntime } from '../agent-backend.js';
import type { StateExecutor } from '../../executors/executor.js';
import { createClaudeExecutor } from './claude-executor.js';
import { claudeSettingsOf } from './claude-settings.js';
import { createWarmSessions } from './warm-sessions.js';

/**
 * The executor of a run's Claude Code turns from what the run gives every
 * backend: its own settings (binary, permission mode, denied tools) and,
 * unless `--no-warm` (or for an executor of one turn: no slots given), live
 * processes kept between turns, as many as the machine's turn slots.
 */
export function claudeExecutorFor(runtime: BackendRuntime): StateExecutor {
  const own = claudeSettingsOf(runtime.settings);
  const env = Object.fromEntries(
    Object.entries(runtime.env ?? {}).filter((e): e is [string, string] => e[1] !== undefined),
  );
  const slots = runtime.turnSlots;
  const make = () => createWarmSessions(slots!, env);
  const warm =
    own.warm && slots !== undefined ? (runtime.keep?.of('claude.warm', make) ?? make()) : undefined;
  const executor = createClaudeExecutor({
    bin: own.claudeBin,
    skipPermissions: runtime.skipPermissions,
    permissionMode: own.permissionMode,
    disallowedTools: own.disallowedTools,
    emit: runtime.emit,
    env: runtime.env,
    ...(warm ? { warm } : {}),
  });
  // Live processes kept by the caller outlive this executor: the caller's keep ends them.
  return runtime.keep ? { ...executor, close: undefined } : executor;
}
