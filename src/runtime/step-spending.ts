import { RaymondError, type SpentDetails } from '../errors.js';
import { parentSession, type SessionPlan } from '../executors/executor.js';

/** What the step's turns cost so far, and each session's last known total. */
export class Spending {
  costUsd = 0;
  private readonly totals = new Map<string, number>();
  constructor(private readonly known: Record<string, number>) {}

  /** The session total a plan's turn is charged from. */
  base(plan: SessionPlan): number | undefined {
    const sid = parentSession(plan);
    return sid === undefined ? undefined : (this.totals.get(sid) ?? this.known[sid]);
  }

  add(costUsd: number, session: string | null | undefined, total: number | null | undefined): void {
    this.costUsd += costUsd;
    if (session && total !== null && total !== undefined) this.totals.set(session, total);
  }

  get sessionCosts(): Record<string, number> {
    return Object.fromEntries(this.totals);
  }

  /** Attaches what was spent to a failing step's error, so the supervisor still charges it. */
  attach(err: unknown): unknown {
    if (err instanceof RaymondError)
      Object.assign(err.details, {
        spentUsd: this.costUsd,
        sessionCosts: this.sessionCosts,
      } satisfies SpentDetails);
    return err;
  }
}
