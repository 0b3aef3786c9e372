import type { FixFolder } from './fix-folder.js';

/** Why a branch did not go in: a conflict with BRANCH, or the check failing on the merge. */
export type Trouble =
  | { kind: 'conflict'; files: string[]; status: string }
  | { kind: 'check'; command: string; how: string; output: string };

/** The trouble in one line, as the report says it. */
export function troubleLine(t: Trouble, into: string): string {
  if (t.kind === 'conflict')
    return `conflicts with ${into} in ${t.files.join(', ') || 'files git could not merge'}`;
  return `the check \`${t.command}\` ${t.how}`;
}

/** What a resolution turn is told. */
export interface PromptFacts {
  workflowId: string;
  into: string;
  intoSha: string;
  branch: string;
  fixBranch: string;
  folder: string;
  trouble: Trouble;
  fix: FixFolder;
  check?: string;
}

function fenced(text: string): string {
  return ['```', text.trimEnd() || '(nothing)', '```'].join('\n');
}

/**
 * The prompt of a resolution turn: what went wrong, exactly what state the
 * folder is in, and what to do (fix, commit, stay on the branch).
 */
export function resolvePrompt(f: PromptFacts): string {
  const t = f.trouble;
  const what =
    t.kind === 'conflict'
      ? [
          `Raymond is merging the branches of run ${f.workflowId} into ${f.into}, one at a time. Your branch ${f.branch} conflicts with ${f.into} in: ${t.files.join(', ')}.`,
          `git status of that merge:`,
          fenced(t.status),
        ]
      : [
          `Raymond is merging the branches of run ${f.workflowId} into ${f.into}, one at a time. Your branch ${f.branch} merged cleanly, but the check \`${t.command}\` ${t.how} on the result. Its output (the end of it):`,
          fenced(t.output),
        ];
  const base = `${f.into} (${f.intoSha.slice(0, 10)})`;
  const folder =
    f.fix.kind === 'rebased'
      ? [
          `This folder, ${f.folder}, is a new worktree on branch ${f.fixBranch}, made from your branch with your commits rebased onto ${base}. No operation is in progress and the folder is clean.`,
        ]
      : f.fix.kind === 'merged'
        ? [
            `This folder, ${f.folder}, is a new worktree on branch ${f.fixBranch}, made from your branch, with ${base} merged into it (a rebase stopped on a conflict, so it was aborted and a merge made instead). No operation is in progress and the folder is clean.`,
          ]
        : [
            `This folder, ${f.folder}, is a new worktree on branch ${f.fixBranch}, made from your branch. Rebasing your commits onto ${base} stopped on a conflict, so the rebase was aborted and ${base} is being merged into the branch instead: that merge is in progress and stopped on conflicts in ${f.fix.files.join(', ')}, whose conflict markers are in the files. git status:`,
            fenced(f.fix.status),
          ];
  const check = f.check ? ` and \`${f.check}\` passes here` : '';
  const todo = `Fix it here, so that your change and what is already on ${f.into} both hold${check}. Then commit${f.fix.kind === 'merging' ? ' (git add the resolved files, then git commit --no-edit, which concludes the merge)' : ''}. Stay on ${f.fixBranch}: do not switch branches, rebase, reset or push. Reply with one line saying what you changed.`;
  return [...what, '', ...folder, '', todo].join('\n');
}
