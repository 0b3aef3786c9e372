import { preflightCli, type AgentCli } from '../../executors/cli-preflight.js';

/** The Codex CLI, installed by `@openai/codex`. */
const CODEX_CLI: AgentCli = {
  command: 'codex',
  title: 'Codex',
  backend: 'codex',
  pkg: '@openai/codex',
};

/**
 * `codex` on PATH, checked with `codex --version` once per process: a
 * missing or broken codex is one line before any state runs. Resolves to
 * the `codex` it checked.
 */
export function preflightCodex(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return preflightCli(CODEX_CLI, env);
}
