import { WarmProcess, type WarmFit } from './warm-process.js';

/**
 * How long a live process waits, unused, for its session's next turn before
 * it is let go. An agent that goes on in its session waits only for a slot,
 * behind the other agents' turns: at `--max-parallel 4` with 8 agents, one
 * turn. Two seconds (as before) was shorter than a turn on a loaded
 * machine, and every turn started cold: measured, 8 agents x 10 steps took
 * 117 s against 16 s with a minute. Memory stays bounded by the cap (the one
 * idle longest goes first); an agent that waits for something else (a
 * callee, its workers, an answer) or ends gives its process up at once
 * (endsWarmth in src/runtime/step-context.ts).
 */
export const WARM_IDLE_MS = 60_000;

/** The live Claude Code processes of one run, by session. */
export interface WarmSessions {
  /** The live process of `session`, idle and fit for the turn, taken for it (model changes are made in the process). */
  take(session: string, fit: WarmFit): WarmProcess | undefined;
  /**
   * Starts a process for a turn (`turnEnv` over the run's environment, for
   * its whole life); when the live ones fill the memory cap, the longest
   * idle goes first.
   */
  start(bin: string, args: string[], fit: WarmFit, turnEnv?: Record<string, string>): WarmProcess;
  /** After a good turn: kept for the session's next turn, and let go after WARM_IDLE_MS unused. */
  keep(session: string, p: WarmProcess): void;
  /** After a failed turn: the process goes (the retry starts cold with --resume). */
  drop(p: WarmProcess): void;
  /** The session will not be continued: its idle process goes now rather than after WARM_IDLE_MS. */
  release(session: string): void;
  /** Live processes now (busy and idle). */
  live(): number;
  /** The run ended: every process goes. */
  close(): void;
}

/** `cap`: most live processes at once (the run's memory-aware cap on Claude Code turns). */
export function createWarmSessions(
  cap: number,
  env: Readonly<Record<string, string>> = {},
): WarmSessions {
  const bySession = new Map<string, WarmProcess>();
  const all = new Set<WarmProcess>();
  const timers = new Map<WarmProcess, NodeJS.Timeout>();

  const forget = (p: WarmProcess) => {
    clearTimeout(timers.get(p));
    timers.delete(p);
    all.delete(p);
    for (const [session, q] of bySession) if (q === p) bySession.delete(session);
  };
  const drop = (p: WarmProcess) => {
    forget(p);
    p.kill();
  };

  return {
    take(session, fit) {
      const p = bySession.get(session);
      if (!p) return undefined;
      if (
        !p.alive ||
        p.busy ||
        p.cwd !== fit.cwd ||
        p.effort !== fit.effort ||
        p.grant !== fit.grant ||
        p.agent !== fit.agent ||
        (fit.model === undefined && p.model !== undefined)
      ) {
        // A live process of the session that does not fit goes: the turn starts one that does.
        drop(p);
        return undefined;
      }
      clearTimeout(timers.get(p));
      timers.delete(p);
      return p;
    },

    start(bin, args, fit, turnEnv = {}) {
      for (const p of all) if (!p.alive) forget(p);
      while (all.size >= cap) {
        const idle = [...all].filter((p) => !p.busy).sort((a, b) => a.idleSince - b.idleSince)[0];
        if (!idle) break;
        drop(idle);
      }
      const p = new WarmProcess(bin, args, fit, { ...env, ...turnEnv });
      all.add(p);
      return p;
    },

    keep(session, p) {
      if (!p.alive) return forget(p);
      const other = bySession.get(session);
      if (other && other !== p) drop(other);
      bySession.set(session, p);
      clearTimeout(timers.get(p));
      // Unreferenced: an idle process must not keep a finished run waiting.
      timers.set(p, setTimeout(() => drop(p), WARM_IDLE_MS).unref());
    },

    drop,
    release(session) {
      const p = bySession.get(session);
      if (p && !p.busy) drop(p);
    },
    live: () => all.size,

    close() {
      for (const p of [...all]) drop(p);
    },
  };
}
