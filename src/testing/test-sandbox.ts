import { execFileSync } from 'node:child_process';
import { relative, isAbsolute } from 'node:path';
import { allBackends } from '../backends/registry.js';

/** Whether `path` is `folder` or inside it. */
export function insideFolder(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** What a test's agent CLIs run with. */
export interface TestEnvironmentOptions {
  home: string;
  /** The scripted model's address. */
  url: string;
  /** The test's scratch folder, where each backend sets its CLI up. */
  scratch: string;
  /** The test's own temporary folder, inside its scratch folder. */
  tmp: string;
  /** The test's own `env:`. */
  own?: Readonly<Record<string, string>>;
}

/**
 * The environment of every agent CLI a test starts: its own home (no real
 * session, login or setting is seen), the scripted model as the only API,
 * and every variable that could send a request elsewhere removed.
 */
export function testEnvironment(o: TestEnvironmentOptions): Record<string, string | undefined> {
  return {
    ...o.own,
    HOME: o.home,
    // Claude Code keeps sockets and files in the temporary folder: the test's, removed with it.
    TMPDIR: o.tmp,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    // Every backend's CLI, since a workflow may call one on another backend.
    ...(Object.assign(
      {},
      ...allBackends().map((b) => b.scripted.environment(o.scratch, o.url)),
    ) as Record<string, string | undefined>),
  };
}

/**
 * Makes `work` a git repository on `main` with its files in one commit,
 * author, committer and dates fixed and no user or system config read: the
 * same commit id in every run of the test.
 */
export function commitAll(work: string): void {
  const env = {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'raymond test',
    GIT_AUTHOR_EMAIL: 'test@raymond.invalid',
    GIT_COMMITTER_NAME: 'raymond test',
    GIT_COMMITTER_EMAIL: 'test@raymond.invalid',
    GIT_AUTHOR_DATE: '2000-01-01T00:00:00Z',
    GIT_COMMITTER_DATE: '2000-01-01T00:00:00Z',
  };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: work, env, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '--allow-empty', '-m', "raymond test: the test's files");
}
