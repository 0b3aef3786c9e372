/**
 * A state's grant as a turn takes it: files read, paths resolved. Executors
 * turn it into their CLI's flags; the warm sessions compare it whole.
 */
export interface ResolvedGrant {
  /** The only built-in tools; `[]`: none; absent: the CLI's default set. */
  tools?: string[];
  allowedTools?: string[];
  /** Added to the run's `--disallowed-tools`. */
  disallowedTools?: string[];
  /** `{"mcpServers": {...}}` as JSON text. */
  mcpConfig?: string;
  mcpInherit?: boolean;
  appendSystemPrompt?: string;
  /** Absolute directories. */
  addDirs?: string[];
  permissionMode?: string;
}

/** One string per grant: two turns with equal keys may share a live process. */
export function grantKey(grant: ResolvedGrant | undefined): string {
  if (!grant) return '';
  const entries = Object.entries(grant).filter(([, v]) => v !== undefined);
  return entries.length === 0
    ? ''
    : JSON.stringify(Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : 1))));
}
