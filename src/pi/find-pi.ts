import { execa } from 'execa';
import { RaymondError } from '../errors.js';
import { searchPath } from '../executors/find-executable.js';

/** The npm package that installs `pi`, for the message when it is missing. */
export const PI_PACKAGE = '@earendil-works/pi-coding-agent';

const missing = () =>
  new RaymondError(
    'ERR_BACKEND_NOT_FOUND',
    `pi is not on PATH, and this workflow runs on pi (backend: pi): install it with npm install -g ${PI_PACKAGE}`,
  );

/** The `pi` executable on PATH. */
function findPi(env: NodeJS.ProcessEnv = process.env): string {
  const found = searchPath('pi', env);
  if (found) return found;
  throw missing();
}

const checked = new Map<string, Promise<string>>();

/** pi starts in about 2 s on an idle two-core machine and took 4.9 s under load: a broken pi is caught well before this. */
const PREFLIGHT_TIMEOUT_MS = 30_000;

/**
 * `pi --version`, once per process: pi prints it on stderr, so only its
 * exit status counts. A missing or broken pi is one line before any state
 * runs. Resolves to the `pi` it checked.
 */
export function preflightPi(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const bin = findPi(env);
  let check = checked.get(bin);
  if (!check) {
    check = execa(bin, ['--version'], {
      reject: false,
      stdin: 'ignore',
      timeout: PREFLIGHT_TIMEOUT_MS,
      env: { PI_SKIP_VERSION_CHECK: '1' },
    }).then((r) => {
      if (r.exitCode !== 0)
        throw new RaymondError(
          'ERR_BACKEND_NOT_FOUND',
          `${bin} --version failed (${r.timedOut ? `no answer in ${PREFLIGHT_TIMEOUT_MS / 1000} s` : `exit ${r.exitCode ?? r.signal}`}): reinstall it with npm install -g ${PI_PACKAGE}`,
        );
      return bin;
    });
    checked.set(bin, check);
  }
  return check;
}
