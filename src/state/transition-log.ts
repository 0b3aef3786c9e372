/** One step line of a `transitions.log` (written by transitionLine, src/state/debug-log.ts), read back. */
export interface LoggedStep {
  /** When the line was written (epoch ms). */
  at: number;
  agent: string;
  state: string;
  /** The transition's kind, or `failed` / `paused`. */
  kind: string;
  costUsd: number;
}

// The lines of transitionLine(), after the timestamp. Agent ids hold no `]` nor spaces.
const STEP = /^(\S+) \[(\S+)\] (\S+) -> .* \((\w[\w-]*)\) cost=\$([\d.]+) /;
const ENDED = /^(\S+) \[(\S+)\] (\S+) (failed|paused): /;

/**
 * The step a transitions.log line records, if it records one: a step that
 * ended with a transition, or whose agent failed or paused on it. Other
 * lines (asks, denials, the run's input) give undefined: the log is for
 * people too, and lines it does not know are skipped.
 */
export function loggedStep(line: string): LoggedStep | undefined {
  let m = STEP.exec(line);
  if (m)
    return {
      at: Date.parse(m[1]!),
      agent: m[2]!,
      state: m[3]!,
      kind: m[4]!,
      costUsd: Number(m[5]),
    };
  m = ENDED.exec(line);
  if (m) return { at: Date.parse(m[1]!), agent: m[2]!, state: m[3]!, kind: m[4]!, costUsd: 0 };
  return undefined;
}
