import { execa } from 'execa';
import { RaymondError } from '../errors.js';
import { searchPath } from '../executors/find-executable.js';

/** The npm package that installs `codex`, for the message when it is missing. */
export const CODEX_PACKAGE = '@openai/codex';

const checked = new Map<string, Promise<string>>();

/** codex answers --version in well under a second; a broken install is caught long before this. */
const PREFLIGHT_TIMEOUT_MS = 30_000;

/**
 * `codex` on PATH, checked with `codex --version` once per process: a
 * missing or broken codex is one line before any state runs. Resolves to
 * the `codex` it checked.
 */
export function preflightCodex(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const bin = searchPath('codex', env);
  if (!bin)
    return Promise.reject(
      new RaymondError(
        'ERR_BACKEND_NOT_FOUND',
        `codex is not on PATH, and this workflow runs on Codex (backend: codex): install it with npm install -g ${CODEX_PACKAGE}`,
      ),
    );
  let check = checked.get(bin);
  if (!check) {
    check = execa(bin, ['--version'], {
      reject: false,
      stdin: 'ignore',
      timeout: PREFLIGHT_TIMEOUT_MS,
    }).then((r) => {
      if (r.exitCode !== 0)
        throw new RaymondError(
          'ERR_BACKEND_NOT_FOUND',
          `${bin} --version failed (${r.timedOut ? `no answer in ${PREFLIGHT_TIMEOUT_MS / 1000} s` : `exit ${r.exitCode ?? r.signal}`}): reinstall it with npm install -g ${CODEX_PACKAGE}`,
        );
      return bin;
    });
    checked.set(bin, check);
  }
  return check;
}
