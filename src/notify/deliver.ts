import { execa } from 'execa';
import { proxiedFetch } from '../proxied-fetch.js';
import { hookRequest, redactUrl } from './hook-spec.js';

/**
 * The largest event passed in `RAYMOND_EVENT`: Linux refuses to start a
 * program whose one variable is over 128 KiB, and the inherited environment
 * needs room too. A larger event (long results) is on stdin only.
 */
export const MAX_EVENT_VARIABLE_BYTES = 64 * 1024;

/** One delivery attempt: how long it may take, and what stops it early (the notifier giving up). */
export interface AttemptOptions {
  timeoutMs: number;
  signal: AbortSignal;
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group already exited.
  }
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/**
 * Runs a hook command once, without a shell, the JSON on its stdin and in
 * `RAYMOND_EVENT`. It runs in a process group of its own, killed whole when
 * it runs past the timeout, so a hook's own children go with it.
 * @returns undefined on exit 0, else why it failed.
 */
export async function runCommandHook(
  argv: readonly string[],
  json: string,
  opts: AttemptOptions,
): Promise<string | undefined> {
  const env = Buffer.byteLength(json) <= MAX_EVENT_VARIABLE_BYTES ? { RAYMOND_EVENT: json } : {};
  // A hook's output would cut through the progress lines: it goes nowhere.
  const child = execa(argv[0]!, argv.slice(1), {
    shell: false,
    input: json,
    env,
    detached: true,
    stdout: 'ignore',
    stderr: 'ignore',
    reject: false,
  });
  let timedOut = false;
  const kill = () => child.pid !== undefined && killGroup(child.pid);
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, opts.timeoutMs);
  opts.signal.addEventListener('abort', kill, { once: true });
  try {
    const r = await child;
    if (timedOut) return `killed after running ${seconds(opts.timeoutMs)}`;
    if (r.exitCode === 0) return undefined;
    if (r.exitCode !== undefined) return `exit code ${r.exitCode}`;
    if (r.signal !== undefined) return `killed by ${r.signal}`;
    const code = (r as { code?: string }).code;
    return `could not start${code ? ` (${code})` : ''}`;
  } finally {
    clearTimeout(timer);
    opts.signal.removeEventListener('abort', kill);
  }
}

/**
 * POSTs the JSON to a hook URL once, through the environment's proxy if it
 * names one; a user and password in the URL go as a Basic Authorization
 * header.
 * @returns undefined on a 2xx answer, else why it failed, with the URL's
 * password and query hidden.
 */
export async function postUrlHook(
  url: string,
  json: string,
  opts: AttemptOptions,
): Promise<string | undefined> {
  const reason = await post(url, json, opts);
  return reason === undefined ? undefined : redactUrl(reason, url);
}

async function post(url: string, json: string, opts: AttemptOptions): Promise<string | undefined> {
  const request = hookRequest(url);
  try {
    const res = await proxiedFetch(request.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...request.headers },
      body: json,
      signal: AbortSignal.any([AbortSignal.timeout(opts.timeoutMs), opts.signal]),
    });
    // The answer's body says nothing we use; reading it to the end frees the connection.
    await res.arrayBuffer().catch(() => {});
    return res.ok ? undefined : `${res.status} ${res.statusText}`.trim();
  } catch (err) {
    if (err instanceof Error && err.name === 'TimeoutError')
      return `no answer in ${seconds(opts.timeoutMs)}`;
    const cause =
      err instanceof Error
        ? (err.cause as { code?: string; message?: string } | undefined)
        : undefined;
    return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
  }
}
