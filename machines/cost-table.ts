// A run's cost by state (or by agent), summed step by step. Pure and free of
// node:* so that the run history (`raymond stats`, `--status`), the server
// (`GET /runs/{id}`) and the live page in the browser (bundled by esbuild)
// count with the same code and show the same rows.

/** `claude-haiku-5-5 8, claude-sonnet-5-5 12`: a row's steps by the model that answered them, most first. */
export function answeredByText(counts: Record<string, number> | undefined): string {
  const entries = Object.entries(counts ?? {}).sort(
    (a, b) => b[1] - a[1] || a[0].localeCompare(b[0]),
  );
  return entries.length === 0 ? '-' : entries.map(([m, n]) => `${m} ${n}`).join(', ');
}

/** Counts one step for each model that answered it, in `counts` (made when the first model is named). */
export function countAnswered(
  counts: Record<string, number> | undefined,
  models: readonly string[] | undefined,
): Record<string, number> | undefined {
  for (const m of models ?? []) {
    counts ??= {};
    counts[m] = (counts[m] ?? 0) + 1;
  }
  return counts;
}

/** A row of a run's cost table: a state's or an agent's steps. */
export interface CostRow {
  name: string;
  steps: number;
  turns: number;
  costUsd: number;
  wallMs: number;
  /** Its part of the run's cost (0 to 1; 0 when the run cost nothing). */
  share: number;
  /** Its steps by the model that answered them (a step a fallback model finished counts for each); absent: none named. */
  answeredBy?: Record<string, number>;
}

/** What a cost row counts of one step (a step record, or the `step.measured` event). */
export interface CostedStep {
  turns: number;
  costUsd: number;
  wallMs: number;
  answeredBy?: readonly string[];
}

/** The key of a step's state in a table by state: a cross-workflow callee's states carry their workflow's key. */
export function stateKeyOf(r: { state: string; scope?: string }): string {
  return r.scope === undefined ? r.state : `${r.scope}:${r.state}`;
}

/**
 * Cost rows summed as steps come: a run's table by state or by agent, for
 * `raymond stats RUN` from its records, or live from a run's events.
 */
export class CostTable {
  private readonly by = new Map<string, CostRow>();

  /** A table holding `rows` already (a snapshot's), to add the next steps to. */
  constructor(rows: readonly CostRow[] = []) {
    for (const r of rows)
      this.by.set(r.name, { ...r, ...(r.answeredBy ? { answeredBy: { ...r.answeredBy } } : {}) });
  }

  add(name: string, step: CostedStep): void {
    let row = this.by.get(name);
    if (!row)
      this.by.set(name, (row = { name, steps: 0, turns: 0, costUsd: 0, wallMs: 0, share: 0 }));
    row.steps++;
    row.turns += step.turns;
    row.costUsd += step.costUsd;
    row.wallMs += step.wallMs;
    const answeredBy = countAnswered(row.answeredBy, step.answeredBy);
    if (answeredBy) row.answeredBy = answeredBy;
  }

  get size(): number {
    return this.by.size;
  }

  /** The rows, dearest first, each with its share of `total`. */
  rows(total: number): CostRow[] {
    return [...this.by.values()]
      .map((r) => ({ ...r, share: total > 0 ? r.costUsd / total : 0 }))
      .sort((a, b) => b.costUsd - a.costUsd || a.name.localeCompare(b.name));
  }
}
