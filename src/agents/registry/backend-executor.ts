import type { AgentBackend, BackendRuntime, TurnWidth } from '../agent-backend.js';
import type {
  BackendSpec,
  Execution,
  ExecutionRequest,
  StateExecutor,
} from '../../executors/executor.js';
import { RaymondError } from '../../errors.js';
import { backendOf } from './registry.js';

/**
 * One executor for markdown states that hands each turn to its workflow's
 * backend; each backend's executor is made when a turn first needs it.
 * With `runtime.widthOf`, each backend's turns pass its account's width:
 * fewer start while its API refuses them, none while its usage is spent.
 * `backends` finds a request's backend (the registry's; tests give fakes).
 */
export function backendExecutor(
  runtime: BackendRuntime,
  backends: (spec: BackendSpec | undefined) => AgentBackend = backendOf,
): StateExecutor {
  type Made = { executor: StateExecutor; width?: TurnWidth };
  const made = new Map<string, Made>();
  const making = new Map<string, Promise<Made>>();
  // The executor's turns run with the account's variables (its gate's address): known once the gate is open.
  const make = async (backend: AgentBackend): Promise<Made> => {
    const width = runtime.widthOf?.(backend.name);
    const gated = await width?.env?.();
    const own = gated ? { ...runtime, env: { ...runtime.env, ...gated } } : runtime;
    const entry = { executor: backend.executor(own), ...(width && { width }) };
    made.set(backend.name, entry);
    return entry;
  };
  const of = (req: ExecutionRequest) => {
    const backend = backends(req.backend);
    let entry = making.get(backend.name);
    if (!entry) making.set(backend.name, (entry = make(backend)));
    return entry;
  };
  return {
    async execute(req) {
      const { executor, width } = await of(req);
      return width ? widthTurn(executor, width, req) : executor.execute(req);
    },
    endSession(session) {
      for (const e of made.values()) e.executor.endSession?.(session);
    },
    close() {
      for (const e of made.values()) {
        e.width?.close?.();
        e.executor.close?.();
      }
    },
  };
}

/** One turn inside its account's width: it waits for a place, reports refusals, and parks the account on a usage limit. */
async function widthTurn(
  executor: StateExecutor,
  width: TurnWidth,
  req: ExecutionRequest,
): Promise<Execution> {
  await width.acquire(req.signal);
  let answered = false;
  let signalled = false;
  try {
    const execution = await executor.execute({
      ...req,
      onLimited: (status, delayMs) => {
        signalled = true;
        width.limited(status, delayMs);
        req.onLimited?.(status, delayMs);
      },
    });
    answered = true;
    return execution;
  } catch (err) {
    const details = err instanceof RaymondError ? err.details : {};
    if (err instanceof RaymondError && err.code === 'ERR_USAGE_LIMIT') {
      const resetsAt = details.resetsAt;
      if (typeof resetsAt === 'number' && Number.isFinite(resetsAt))
        width.park(resetsAt, err.message);
    }
    // A backend that tells of a refusal only when the turn fails on it (codex without its retries).
    const limited = details.limited;
    if (!signalled && (limited === 429 || limited === 529)) width.limited(limited, null);
    throw err;
  } finally {
    await width.release(answered);
  }
}
