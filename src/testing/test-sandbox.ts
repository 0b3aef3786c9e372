import { execFileSync } from 'node:child_process';
import { allBackends } from '../agents/registry/registry.js';

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
 * The only variables of Raymond's own environment a test's processes see:
 * what finding programs, text encoding, the terminal and the clock need.
 * An allow-list, not a deny-list: a credential under a name nobody thought
 * of (a token, an agent socket, a config folder) stays out.
 */
export const PASSED_VARIABLES: readonly string[] = [
  'PATH',
  'LANG',
  'LANGUAGE',
  'TERM',
  'TZ',
  'SHELL',
  'USER',
  'LOGNAME',
  // The Raymond running the test (main.ts sets it), which a script calls back: `"$RAYMOND_BIN" merge`.
  'RAYMOND_BIN',
  // Windows cannot start programs without these.
  'SYSTEMROOT',
  'COMSPEC',
  'PATHEXT',
  'WINDIR',
];

/** Whether Raymond's own variable `name` reaches a test's processes: a listed one or a locale `LC_*`. */
export function passesToTest(name: string): boolean {
  return PASSED_VARIABLES.includes(name.toUpperCase()) || name.startsWith('LC_');
}

/**
 * The environment of every agent CLI and script a test starts: of Raymond's
 * own variables only the allow-listed (PASSED_VARIABLES) remain, every other
 * one is unset (undefined); then the test's own `env:`, its own home (no
 * real session, login or setting is seen) and the scripted model as the only API.
 */
export function testEnvironment(
  o: TestEnvironmentOptions,
  inherited: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string | undefined> {
  const removed = Object.fromEntries(
    Object.keys(inherited)
      .filter((k) => !passesToTest(k))
      .map((k) => [k, undefined]),
  );
  return {
    ...removed,
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
