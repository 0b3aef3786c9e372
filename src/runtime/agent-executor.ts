import type { RunEventSink } from '../../machines/run-events.js';
import { backendExecutor } from '../agents/registry/backend-executor.js';
import type { StateExecutor } from '../executors/executor.js';
import type { RunSettings } from '../settings/run-settings.js';

/**
 * The markdown states' executor: the workflow's agent CLI (its backend) as the run's settings say, with `env` for every turn. `raymond test`
 * makes one per step, with the step's ticket in `env`.
 */
export function agentExecutor(
  settings: RunSettings,
  emit: RunEventSink,
  env: Readonly<Record<string, string | undefined>> | undefined,
  turns?: { slots: number; onWidth: (backend: string, width: number) => void },
): StateExecutor {
  return backendExecutor({
    skipPermissions: settings.skipPermissions,
    settings: settings.backendSettings ?? {},
    emit,
    env,
    ...(turns && { turnSlots: turns.slots }),
    // --no-adaptive-width: no account width, --max-parallel and the machine's slots alone.
    ...(turns &&
      settings.adaptiveWidth !== false && {
        maxTurns: Math.min(settings.maxParallel, turns.slots),
        onWidth: turns.onWidth,
      }),
    prices: settings.prices,
  });
}
