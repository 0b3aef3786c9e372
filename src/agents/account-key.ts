import { createHash } from 'node:crypto';

/** The variables that tell one account from another: its endpoint and its credentials. */
const ACCOUNT_VARIABLE = /(_BASE_URL|_API_KEY|_AUTH_TOKEN|_OAUTH_TOKEN)$/;

/**
 * Which account of `backend` a turn run with `env` uses: the backend, and a
 * hash of its endpoint and credentials (the variables that name them), so
 * two accounts never share a width and no secret is kept. A machine logged
 * in without such variables (a stored login) counts as the one account of
 * its backend with no variables.
 */
export function accountOf(backend: string, env: Readonly<Record<string, string | undefined>>) {
  const named = Object.entries(env)
    .filter(([k, v]) => ACCOUNT_VARIABLE.test(k) && v)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  const hash = createHash('sha256')
    .update(JSON.stringify([backend, named]))
    .digest('hex');
  return `${backend}:${hash.slice(0, 24)}`;
}
