import { mkdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ApiServer } from './api-server.js';
import { ROOT, Sandbox, type CliResult } from './cli.js';

/** The real Claude Code binary installed as a devDependency. */
export const CLAUDE_BIN_DIR = join(ROOT, 'node_modules/.bin');

/**
 * A sandbox whose runs use the real `claude` (found on PATH) talking to a
 * scripted Messages API server on 127.0.0.1, with a HOME of its own so
 * sessions stay inside the sandbox.
 */
export class ClaudeSandbox extends Sandbox {
  readonly server = new ApiServer();
  readonly home = join(this.dir, '.home');

  async start(): Promise<this> {
    mkdirSync(this.home, { recursive: true });
    await this.server.start();
    return this;
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      ...this.server.env(this.home),
      PATH: `${CLAUDE_BIN_DIR}${delimiter}${process.env.PATH ?? ''}`,
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

/**
 * The first line of a wrapper script around the real `claude` that logs or
 * alters its turns: Raymond's `--version` and `--help` (asked once a run, to
 * learn which flags it has) go straight to claude, neither logged nor altered.
 */
export const PASS_QUESTIONS = 'case "$1" in --version | --help) exec claude "$@" ;; esac';
