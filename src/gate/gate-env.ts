import { proxySettings } from '../proxied-fetch.js';

/** Loopback, as NO_PROXY names it: the gate is on this machine. */
const LOOPBACK = '127.0.0.1';

/**
 * The variables a turn runs with to call its account's API through the
 * gate at `url`: `variable` (`ANTHROPIC_BASE_URL`) names the gate, and where
 * `env` sends HTTP through a proxy, NO_PROXY keeps the gate's loopback
 * address off it (the gate itself goes through the proxy to the API).
 */
export function gateEnv(
  variable: string,
  url: string,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const out: Record<string, string> = { [variable]: url };
  if (!proxySettings({ ...process.env, ...env })) return out;
  const now = env.NO_PROXY ?? env.no_proxy ?? process.env.NO_PROXY ?? process.env.no_proxy ?? '';
  const list = now.split(',').map((h) => h.trim());
  const noProxy = list.includes(LOOPBACK) ? now : [now, LOOPBACK].filter(Boolean).join(',');
  return { ...out, NO_PROXY: noProxy, no_proxy: noProxy };
}
