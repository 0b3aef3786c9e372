import { mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ResponsesServer } from './responses-server.js';
import { ROOT, Sandbox, type CliResult } from './cli.js';

/** The model the sandbox's runs name; priced in tests through `[raymond.prices]`. */
export const CODEX_TEST_MODEL = 'mock-model';

/** The provider's key variable, and its value in the sandbox's environment. */
const KEY_VAR = 'MOCK_CODEX_KEY';

/**
 * A sandbox whose runs use the real `codex` (the devDependency, on PATH)
 * against the scripted Responses API server: a `CODEX_HOME` of its own holds
 * a config.toml whose provider is that server, with codex's own retries off
 * (Raymond's retries are what is tested), and a HOME of its own.
 */
export class CodexSandbox extends Sandbox {
  readonly server = new ResponsesServer();
  readonly home = join(this.dir, '.home');
  readonly codexHome = join(this.dir, '.codex-home');
  /**
   * codex's temporary folder. codex makes no `codex-linux-sandbox` alias under
   * a CODEX_HOME inside the temporary folder, and where bwrap is installed it
   * runs every command through that alias: commands fail with "execvp
   * codex-linux-sandbox: No such file". The sandbox is under /tmp, so its
   * TMPDIR is a folder beside the CODEX_HOME, as `raymond test` does.
   */
  readonly tmp = join(this.dir, '.tmp');

  async start(): Promise<this> {
    mkdirSync(this.home, { recursive: true });
    mkdirSync(this.tmp, { recursive: true });
    await this.server.start();
    this.writeConfig(this.codexHome);
    return this;
  }

  /** Writes the sandbox's config.toml into `codexHome` (another CODEX_HOME, for a moved session). */
  writeConfig(codexHome: string): void {
    mkdirSync(codexHome, { recursive: true });
    const config = [
      'model_provider = "mock"',
      `model = "${CODEX_TEST_MODEL}"`,
      // No update check, no analytics: the sandbox is offline.
      'check_for_update_on_startup = false',
      '[analytics]',
      'enabled = false',
      // The sandbox's folders are under /tmp, which workspace-write lets codex write by default:
      // without it, a sibling of the agent's folder is outside the workspace, as on a user's machine.
      '[sandbox_workspace_write]',
      'exclude_slash_tmp = true',
      'exclude_tmpdir_env_var = true',
      '[model_providers.mock]',
      'name = "mock"',
      `base_url = "${this.server.url}"`,
      `env_key = "${KEY_VAR}"`,
      'wire_api = "responses"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      'supports_websockets = false',
      '',
    ].join('\n');
    writeFileSync(join(codexHome, 'config.toml'), config);
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      HOME: this.home,
      CODEX_HOME: this.codexHome,
      TMPDIR: this.tmp,
      [KEY_VAR]: 'test-key',
      PATH: `${join(ROOT, 'node_modules/.bin')}${delimiter}${process.env.PATH ?? ''}`,
      ...extra,
    };
  }

  override run(args: string[], env?: Record<string, string>): Promise<CliResult> {
    return super.run(args, this.env(env));
  }

  async stop(): Promise<void> {
    await this.server.stop();
    this.remove();
  }
}
