import { execa } from 'execa';
import { RaymondError } from '../errors.js';

/** One git command's outcome. */
export interface GitResult {
  ok: boolean;
  stdout: string;
  /** Git's complaint squeezed onto one line, for error messages. */
  error: string;
}

/**
 * Runs `git -C dir ...args`. Never throws for a git failure (see `ok`); throws
 * ERR_WORKTREE, naming `where`, only when git cannot be run at all.
 */
export async function git(
  dir: string,
  args: string[],
  where: string,
  env: Record<string, string> = {},
): Promise<GitResult> {
  const r = await execa('git', ['-C', dir, ...args], {
    reject: false,
    stdin: 'ignore',
    // A credential prompt would hang an unattended run forever.
    env: { GIT_TERMINAL_PROMPT: '0', ...env },
    extendEnv: true,
  });
  if (r.exitCode === undefined) {
    const code = (r as { code?: unknown }).code;
    const why =
      code === 'ENOENT' ? 'git not found' : `cannot run git: ${oneLine(r.shortMessage ?? '')}`;
    throw new RaymondError('ERR_WORKTREE', why, { file: where });
  }
  const stdout = typeof r.stdout === 'string' ? r.stdout : '';
  const stderr = typeof r.stderr === 'string' ? r.stderr : '';
  return {
    ok: r.exitCode === 0,
    stdout: stdout.trim(),
    error: oneLine(stderr) || `git ${args[0]} exited with ${r.exitCode}`,
  };
}

/** Keeps git's fatal/error lines and drops its multi-line hints. */
function oneLine(text: string): string {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('hint:'));
  return lines.join(' ');
}

// Git takes lock files on a repository's shared metadata (refs, the
// worktree list, its config) and fails rather than waits when it finds one,
// so every change to them queues here, per repository. Checkouts, switches
// and cleans of different worktrees touch only their own folder and index,
// and run in parallel outside the queue.
const chains = new Map<string, Promise<unknown>>();

/** Runs `task` after every earlier task queued for `repo` has ended. */
export function serialized<T>(repo: string, task: () => Promise<T>): Promise<T> {
  const run = (chains.get(repo) ?? Promise.resolve()).then(task, task);
  // A failed task must not poison the queue for the next caller.
  const settled = run.catch(() => undefined);
  chains.set(repo, settled);
  // Forget an idle repository's chain, so a long-lived process does not keep one per repository ever used.
  void settled.then(() => {
    if (chains.get(repo) === settled) chains.delete(repo);
  });
  return run;
}
