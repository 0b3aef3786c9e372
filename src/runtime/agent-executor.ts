import type { RunEventSink } from '../../machines/run-events.js';
import { AccountWidths } from '../agents/account-widths.js';
import { backendExecutor } from '../agents/registry/backend-executor.js';
import { backendOf } from '../agents/registry/registry.js';
import type { StateExecutor } from '../executors/executor.js';
import type { RunSettings } from '../settings/run-settings.js';

/** The accounts' widths of this process: every run in it (`raymond serve`'s) shares each account's. */
const processWidths = new AccountWidths();

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
        widthOf: (backend: string) => {
          const accountEnv = { ...process.env, ...env };
          return processWidths.join(
            backend,
            accountEnv,
            Math.min(settings.maxParallel, turns.slots),
            { emit, onWidth: (width) => turns.onWidth(backend, width) },
            backendOf({ name: backend }).api?.(accountEnv),
          );
        },
      }),
    prices: settings.prices,
  });
}
