/** The table of lint checks and what a check reports; read by lint-workflow.ts and the checks themselves. */

export type Severity = 'error' | 'warning' | 'info';

/** Severities from the most to the least severe: `--level` shows a severity and those before it. */
export const SEVERITIES: readonly Severity[] = ['error', 'warning', 'info'];

/**
 * Every check `raymond lint` runs, with its severity. Ids are permanent:
 * scripts filter on them. An error is something a run would refuse or fail
 * on; a warning is something a run gets through but is probably a mistake.
 */
export const CHECKS = {
  'no-entry': 'error',
  'ambiguous-entry': 'error',
  'bad-frontmatter': 'error',
  'unknown-frontmatter-key': 'warning',
  'unknown-field': 'warning',
  'invalid-model': 'error',
  'invalid-effort': 'error',
  'unsupported-grant': 'error',
  'unknown-tool': 'warning',
  'bad-grant-file': 'error',
  'bad-add-dir': 'error',
  'malformed-tag': 'error',
  'unknown-tag': 'error',
  'unknown-target': 'error',
  'unknown-workflow': 'error',
  'call-workflow-cd': 'error',
  'missing-ask-next': 'error',
  'unsupported-cd-attribute': 'error',
  'ambiguous-target': 'error',
  'missing-return-state': 'error',
  'call-without-return': 'error',
  'fork-without-next': 'error',
  'fork-next-mismatch': 'warning',
  'unjoined-fork': 'warning',
  'force-implicit-invalid': 'error',
  'bad-worktree-attributes': 'error',
  'bad-task-attribute': 'error',
  'tag-not-allowed': 'warning',
  'unused-allowed-transition': 'warning',
  'attribute-not-in-env': 'warning',
  'unreachable-state': 'warning',
  'link-outside-folder': 'warning',
  'no-way-out': 'error',
  'callee-without-result': 'error',
  'implicit-transition': 'info',
  'script-state-no-static-analysis': 'info',
  // A workflow's test files (tests/*.test.yaml), checked against its graph (src/testing/test-lint.ts).
  'bad-test-file': 'error',
  'test-unknown-state': 'error',
  'test-wrong-state-kind': 'error',
  'test-answer-without-ask': 'warning',
  'test-impossible-agent': 'error',
} as const satisfies Record<string, Severity>;

export type CheckId = keyof typeof CHECKS;

/** What a check reports, before the severity and the user's path are added. */
export interface Problem {
  check: CheckId;
  /** The state file, or undefined for the workflow as a whole. */
  file: string | undefined;
  message: string;
}
