import { preflightCli, type AgentCli } from '../../executors/cli-preflight.js';

/** pi, installed by `@earendil-works/pi-coding-agent`. */
const PI_CLI: AgentCli = {
  command: 'pi',
  title: 'pi',
  backend: 'pi',
  pkg: '@earendil-works/pi-coding-agent',
  versionEnv: { PI_SKIP_VERSION_CHECK: '1' },
};

/**
 * `pi` on PATH, checked with `pi --version` once per process (pi prints it
 * on stderr, so only its exit status counts): a missing or broken pi is
 * one line before any state runs. Resolves to the `pi` it checked.
 */
export function preflightPi(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return preflightCli(PI_CLI, env);
}
