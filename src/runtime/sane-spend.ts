/**
 * What a turn cost, as any backend reported it, made fit for the state file.
 * A cost, a session total or a token count that is not a finite,
 * non-negative number (an agent CLI's nonsense usage, `1e400` parsed as
 * Infinity, a negative figure) would otherwise be written as `null` or a
 * negative cost, and a state file holding either is refused as damaged.
 */

/** The figures of one turn that reach the state file and the run's totals. */
export interface TurnFigures {
  costUsd: number;
  sessionTotal?: number | null;
  tokens?: number;
}

/** The figures made safe, and what was wrong with them (empty when nothing was). */
export interface SaneFigures {
  costUsd: number;
  /** Undefined when the backend's was unusable: the session's next turn is charged from what was known before. */
  sessionTotal: number | null | undefined;
  tokens: number | undefined;
  problems: string[];
}

/**
 * Above this, a figure is not a cost but nonsense (no turn costs a billion
 * dollars), and taking it would let the run's sum reach Infinity: 1e308 is
 * finite, twice it is not.
 */
const MAX_USD = 1e9;

const usable = (v: number, max: number): boolean => Number.isFinite(v) && v >= 0 && v <= max;

/**
 * Keeps each figure that is a finite, non-negative number; an unusable cost
 * is charged as $0, an unusable session total or token count as unknown.
 */
export function saneFigures(figures: TurnFigures): SaneFigures {
  const problems: string[] = [];
  const check = <T extends number | null | undefined>(
    v: T,
    what: string,
    max = MAX_USD,
  ): T | undefined => {
    if (typeof v !== 'number' || usable(v, max)) return v;
    problems.push(`${what} ${String(v)}`);
    return undefined;
  };
  return {
    costUsd: check(figures.costUsd, 'a cost of') ?? 0,
    sessionTotal: check(figures.sessionTotal, 'a session total of'),
    tokens: check(figures.tokens, 'a token count of', Number.MAX_SAFE_INTEGER),
    problems,
  };
}

/** The one warning an unusable turn gets. */
export function figuresWarning(problems: readonly string[]): string {
  return `the agent CLI reported ${problems.join(', ')}, which Raymond cannot count: a cost is taken as $0, a total or a token count as unknown, and the run goes on`;
}
