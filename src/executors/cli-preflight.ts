import { execa } from 'execa';
import { RaymondError } from '../errors.js';
import { searchPath } from './find-executable.js';

/** An agent CLI a backend runs, as its preflight names it. */
export interface AgentCli {
  /** The executable's name on PATH (`pi`, `codex`). */
  command: string;
  /** How messages name the backend (`pi`, `Codex`), and its name in a manifest (`pi`, `codex`). */
  title: string;
  backend: string;
  /** The npm package that installs it, for the message when it is missing or broken. */
  pkg: string;
  /** Variables for `--version` alone (pi's update check off). */
  versionEnv?: Record<string, string>;
}

const checked = new Map<string, Promise<string>>();

/** Agent CLIs start in seconds even under load (pi took 4.9 s); a broken install is caught well before this. */
const PREFLIGHT_TIMEOUT_MS = 30_000;

/**
 * The CLI on PATH, checked with `--version` once per process (only its
 * exit status counts: pi prints its version on stderr): a missing or broken
 * CLI is one line before any state runs. Resolves to the executable it checked.
 */
export function preflightCli(cli: AgentCli, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const bin = searchPath(cli.command, env);
  if (!bin)
    return Promise.reject(
      new RaymondError(
        'ERR_BACKEND_NOT_FOUND',
        `${cli.command} is not on PATH, and this workflow runs on ${cli.title} (backend: ${cli.backend}): install it with npm install -g ${cli.pkg}`,
      ),
    );
  let check = checked.get(bin);
  if (!check) {
    check = execa(bin, ['--version'], {
      reject: false,
      stdin: 'ignore',
      timeout: PREFLIGHT_TIMEOUT_MS,
      ...(cli.versionEnv ? { env: cli.versionEnv } : {}),
    }).then((r) => {
      if (r.exitCode !== 0)
        throw new RaymondError(
          'ERR_BACKEND_NOT_FOUND',
          `${bin} --version failed (${r.timedOut ? `no answer in ${PREFLIGHT_TIMEOUT_MS / 1000} s` : `exit ${r.exitCode ?? r.signal}`}): reinstall it with npm install -g ${cli.pkg}`,
        );
      return bin;
    });
    checked.set(bin, check);
  }
  return check;
}
