import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, isAbsolute } from 'node:path';
import { STEP_HEADER } from './scripted-model.js';

/** pi's model for tests that name none: served by the scripted model, priced at $3 / $15 per million tokens in / out. */
export const PI_TEST_MODEL = { provider: 'raymond-test', id: 'scripted' } as const;

/** Whether `path` is `folder` or inside it. */
export function insideFolder(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * pi's own folder for a test: its only way to a model is the scripted one.
 * The test provider (and the built-in `anthropic` one, for workflows that
 * name its models) points at the server; each request carries the step's
 * ticket from RAYMOND_TEST_STEP, which pi reads for a header value.
 */
export function piAgentDir(scratch: string, url: string): string {
  const dir = join(scratch, 'pi-agent');
  mkdirSync(dir, { recursive: true });
  const headers = { [STEP_HEADER]: 'RAYMOND_TEST_STEP' };
  const models = {
    providers: {
      [PI_TEST_MODEL.provider]: {
        baseUrl: url,
        api: 'anthropic-messages',
        apiKey: 'raymond-test',
        headers,
        models: [
          {
            id: PI_TEST_MODEL.id,
            name: 'Raymond test model',
            reasoning: true,
            contextWindow: 200000,
            maxTokens: 8192,
            cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
          },
        ],
      },
      anthropic: { baseUrl: url, headers },
    },
  };
  writeFileSync(join(dir, 'models.json'), JSON.stringify(models, null, 2));
  // One attempt per turn, and the test model unless the workflow names another.
  writeFileSync(
    join(dir, 'settings.json'),
    JSON.stringify({
      defaultProvider: PI_TEST_MODEL.provider,
      defaultModel: PI_TEST_MODEL.id,
      retry: { enabled: false },
    }),
  );
  return dir;
}

/** What a test's agent CLIs run with. */
export interface TestEnvironmentOptions {
  home: string;
  /** The scripted model's address. */
  url: string;
  piAgentDir: string;
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
    ANTHROPIC_BASE_URL: o.url,
    ANTHROPIC_API_KEY: 'raymond-test',
    ANTHROPIC_AUTH_TOKEN: undefined,
    ANTHROPIC_MODEL: undefined,
    CLAUDE_CODE_USE_BEDROCK: undefined,
    CLAUDE_CODE_USE_VERTEX: undefined,
    CLAUDE_CODE_USE_FOUNDRY: undefined,
    CLAUDE_CONFIG_DIR: undefined,
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    // The test's home is a sandbox: Claude Code allows --dangerously-skip-permissions there, even as root.
    IS_SANDBOX: '1',
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    PI_CODING_AGENT_DIR: o.piAgentDir,
    PI_OFFLINE: '1',
    PI_SKIP_VERSION_CHECK: '1',
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
