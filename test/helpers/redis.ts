import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './browser.js';

/** Why a test that needs Redis was skipped. */
export const NO_REDIS =
  'redis-server is not installed (apt-get install -y redis-server): tested against a real Redis';

/** A throwaway Redis on loopback, without persistence. */
export interface RedisServer {
  url: string;
  port: number;
  /** Kills the server and removes its folder; safe to call twice. */
  stop(): Promise<void>;
  /** Stops the server and starts a new one on the same port: every key is lost. */
  restart(): Promise<void>;
}

/** redis-server on PATH (or in /usr/bin, /usr/local/bin), if there is one. */
export function findRedisServer(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/local/bin'];
  for (const dir of dirs)
    if (dir && existsSync(join(dir, 'redis-server'))) return join(dir, 'redis-server');
  return undefined;
}

/** Whether something on the port answers PING with PONG. */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    let got = '';
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(1000, () => done(false));
    s.on('error', () => done(false));
    s.on('connect', () => s.write('PING\r\n'));
    s.on('data', (d) => {
      got += d.toString('latin1');
      if (got.includes('\r\n')) done(got.startsWith('+PONG') || got.startsWith('-NOAUTH'));
    });
  });
}

/** Children still running when the test process exits are killed with it. */
const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const p of live) p.kill('SIGKILL');
});

/** Starts redis-server on `port`; resolves once it answers PING, rejects if it exits first (port taken) or never answers. */
async function launch(
  bin: string,
  port: number,
  dir: string,
  extra: readonly string[] = [],
): Promise<ChildProcess> {
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--protected-mode',
    'no',
    ...extra,
  ];
  const proc = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  live.add(proc);
  let stderr = '';
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let exited = false;
  proc.once('exit', () => {
    exited = true;
    live.delete(proc);
  });
  const end = Date.now() + 10_000;
  while (!(await pong(port))) {
    if (exited) throw new Error(`redis-server exited on port ${port}: ${stderr.trim()}`);
    if (Date.now() > end) {
      await kill(proc);
      throw new Error(`redis-server did not answer PING on port ${port} within 10 s`);
    }
    await sleep(20);
  }
  return proc;
}

/** Ends a server: SIGTERM, then SIGKILL if it is still there after 3 s. */
async function kill(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 3000);
  await gone;
  clearTimeout(timer);
}

/**
 * A redis-server of its own on a free loopback port (with `password`, one
 * that requires it, and a URL that gives it; with `tls`, also a TLS port,
 * which the URL names), or undefined when
 * redis-server is not installed (the test then skips, saying so).
 */
export async function startRedis(
  opts: { password?: string; tls?: { cert: string; key: string; port: number } } = {},
): Promise<RedisServer | undefined> {
  const extra = [
    ...(opts.password === undefined ? [] : ['--requirepass', opts.password]),
    ...(opts.tls
      ? [
          '--tls-port',
          String(opts.tls.port),
          '--tls-cert-file',
          opts.tls.cert,
          '--tls-key-file',
          opts.tls.key,
          '--tls-auth-clients',
          'no',
        ]
      : []),
  ];
  const bin = findRedisServer();
  if (!bin) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'raymond-redis-'));
  let port = 0;
  let proc: ChildProcess | undefined;
  // Another process may take the free port before the server binds it: try a few.
  for (let attempt = 1; !proc; attempt++) {
    port = await freePort();
    try {
      proc = await launch(bin, port, dir, extra);
    } catch (err) {
      if (attempt === 3) {
        rmSync(dir, { recursive: true, force: true });
        throw err;
      }
    }
  }
  let stopped = false;
  return {
    url: opts.tls
      ? `rediss://127.0.0.1:${opts.tls.port}`
      : opts.password === undefined
        ? `redis://127.0.0.1:${port}`
        : `redis://:${encodeURIComponent(opts.password)}@127.0.0.1:${port}`,
    port,
    async stop() {
      stopped = true;
      if (proc) await kill(proc);
      rmSync(dir, { recursive: true, force: true });
    },
    async restart() {
      if (stopped) throw new Error('restart() after stop()');
      await kill(proc!);
      proc = await launch(bin, port, dir, extra);
    },
  };
}
