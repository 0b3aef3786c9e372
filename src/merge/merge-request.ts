/** What `raymond merge` is asked to do. */
export interface MergeRequest {
  stateDir: string;
  workflowId: string;
  into: string;
  check?: string;
  /** Most resolution turns per branch. */
  retries: number;
  deleteMerged: boolean;
  /** Undefined: the run's budget. 0: unlimited. */
  budgetUsd?: number;
  /** The backends' settings of this machine (`--claude-bin`), by run name. */
  machineSettings?: Readonly<Record<string, unknown>>;
  signal: AbortSignal;
  /** A progress line for stderr. */
  say: (line: string) => void;
}
