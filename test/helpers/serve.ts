import { spawn, type ChildProcess } from 'node:child_process';
import { CLI } from './cli.js';

/** A `raymond serve` process of the built CLI on a free loopback port. */
export interface ServeProcess {
  url: string;
  proc: ChildProcess;
  stderr: () => string;
  /** Resolves with the exit code once the process ended. */
  exited: Promise<number | null>;
  /** SIGTERM, then waits for the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `raymond serve ARGS --port 0` in `cwd` and waits for its "listening on" line. */
export async function startServe(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<ServeProcess> {
  const proc = spawn(process.execPath, [CLI, 'serve', ...args, '--port', '0'], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    proc.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /listening on (http:\/\/[^/]+)\//.exec(err);
      if (m) resolve(m[1]!);
    });
    void exited.then((code) =>
      reject(new Error(`raymond serve exited ${code} before listening:\n${err}`)),
    );
  });
  return {
    url,
    proc,
    stderr: () => err,
    exited,
    stop: async () => {
      proc.kill('SIGTERM');
      return exited;
    },
  };
}

/** A JSON request to the server: its status and parsed body. */
export async function api(
  url: string,
  method = 'GET',
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? headers : { 'Content-Type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: the text itself.
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** Polls until `check` gives a value (no timing asserted: the test's own timeout bounds it). */
export async function until<T>(
  check: () => Promise<T | undefined | false>,
  what: string,
  tries = 400,
): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await check();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/**
 * Starts a run with `POST /runs` (201 asserted) and polls `GET /runs/{id}`
 * until it has `status` (for up to 100 s): its id and that answer's body.
 */
export async function startedUntil(
  url: string,
  body: Record<string, unknown>,
  status: string,
): Promise<{ id: string; run: any }> {
  const started = await api(`${url}/runs`, 'POST', body);
  if (started.status !== 201)
    throw new Error(`POST /runs answered ${started.status}: ${JSON.stringify(started.body)}`);
  const id = started.body.run_id as string;
  const run = await until(
    async () => {
      const r = await api(`${url}/runs/${id}`);
      return r.body.status === status ? r.body : undefined;
    },
    `run ${id} ${status}`,
    2000,
  );
  return { id, run };
}

/** The SSE events of a stream read to its end: `{id, data}` with `data` parsed. */
export async function readEvents(
  url: string,
  headers: Record<string, string> = {},
): Promise<Array<{ id: number | undefined; data: any }>> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((b) => b.includes('data: '))
    .map((block) => {
      const id = /^id: (\d+)$/m.exec(block)?.[1];
      return {
        id: id === undefined ? undefined : Number(id),
        data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!),
      };
    });
}
