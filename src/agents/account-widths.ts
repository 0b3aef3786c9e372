import type { RunEvent } from '../../machines/run-events.js';
import type { TurnWidth } from './agent-backend.js';
import type { GatedApi } from '../gate/api-gates.js';
import { accountOf } from './account-key.js';
import { ApiGates } from '../gate/api-gates.js';
import { GATE_TUNING, type GateTuning } from '../gate/gate-rules.js';
import { AccountWidth } from './account-width.js';
import { WIDTH_TUNING, type WidthTuning } from './width-rules.js';

/** A run that uses an account's width: where its news and its widths go. */
export interface WidthListener {
  /** The run's event stream: the width's changes, whichever run's turn made them. */
  emit: (e: RunEvent) => void;
  /** The run's cap on markdown steps: told the width as it changes (0 while parked). */
  onWidth: (width: number) => void;
}

/**
 * The accounts' widths of one process, one per backend and account
 * (account-key.ts): every run of the process (`raymond serve`'s, a
 * library's) that uses an account shares its width, so two runs against one
 * account do not each find its limit, and together start no more turns
 * than it takes. Its ceiling is the highest of theirs; each run's own
 * `--max-parallel` still caps that run.
 */
export class AccountWidths {
  private readonly accounts = new Map<string, { width: AccountWidth; runs: Set<WidthListener> }>();
  private readonly gates: ApiGates;

  constructor(
    private readonly tuning: WidthTuning = WIDTH_TUNING,
    private readonly now: () => number = Date.now,
    gateTuning: GateTuning = GATE_TUNING,
  ) {
    this.gates = new ApiGates(gateTuning);
  }

  /**
   * The width of `backend`'s account as `env` names it, for one run at
   * most `ceiling` wide; `close` on the width it returns: the run is done.
   * With `api` (the backend's, AgentBackend.api), the account's model
   * requests go through one request gate of the process (api-gate.ts),
   * which the width's `env` names to the turns.
   */
  join(
    backend: string,
    env: Readonly<Record<string, string | undefined>>,
    ceiling: number,
    run: WidthListener,
    api?: GatedApi,
  ): TurnWidth {
    const key = accountOf(backend, env);
    let account = this.accounts.get(key);
    if (!account) {
      const runs = new Set<WidthListener>();
      const width = new AccountWidth(
        backend,
        ceiling,
        (e) => runs.forEach((r) => r.emit(e)),
        this.tuning,
        this.now,
        (n) => runs.forEach((r) => r.onWidth(n)),
      );
      account = { width, runs };
      this.accounts.set(key, account);
    }
    const { width, runs } = account;
    width.raise(ceiling);
    runs.add(run);
    run.onWidth(Math.min(width.current, ceiling));
    const gated = api && {
      env: () => this.gates.env(key, api, env, (gate) => width.attach(gate)),
    };
    return {
      ...gated,
      acquire: (signal) => width.acquire(signal),
      release: (answered) => width.release(answered),
      limited: (status, delayMs) => width.limited(status, delayMs),
      park: (resetsAt, message) => width.park(resetsAt, message),
      close: () => {
        runs.delete(run);
        // The width is kept for the next run against the account; only its timer goes.
        if (runs.size === 0) width.close();
      },
    };
  }
}
