import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { RaymondError, formatError } from '../errors.js';
import { projectRaymondDir } from '../raymond-folder.js';
import { DEFAULT_WAIT_SECONDS, McpEndpoint } from '../mcp/mcp-endpoint.js';
import { generateToken, isLoopback } from '../serve/auth.js';
import { startRun } from '../serve/routes-runs.js';
import type { ServeContext } from '../serve/serve-context.js';
import { REQUEST_TIMEOUT_MS, createServeServer } from '../serve/serve-server.js';
import { readStateFile } from '../state/state-file.js';
import { EXIT } from './exit-codes.js';
import { openServing, type ServingFlags } from './serve-setup.js';

/** Flags of `raymond serve`. */
export interface ServeFlags extends ServingFlags {
  port?: number;
  host?: string;
  launch?: string[];
  token?: string;
  /** The longest an MCP tool call of `/mcp` waits for its run, in seconds. */
  wait?: number;
}

const say = (line: string) => process.stderr.write(`raymond serve: ${line}\n`);

/**
 * The token requests must carry: `--token`, else `RAYMOND_SERVE_TOKEN`;
 * `--token generate` makes one and prints it once. A server bound to
 * anything but loopback is refused without one: it runs agents that edit
 * code and spend money.
 */
function serverToken(flags: ServeFlags, host: string): string | undefined {
  const given = flags.token ?? (process.env.RAYMOND_SERVE_TOKEN || undefined);
  // A server others can reach never runs without a token: one is made when none was given.
  if (given === 'generate' || (given === undefined && !isLoopback(host))) {
    const token = generateToken();
    process.stderr.write(
      `raymond serve: token (shown once; give it as Authorization: Bearer, or log in at /): ${token}\n`,
    );
    return token;
  }
  return given;
}

/** The `raymond serve` server: discovers, runs, serves, and on SIGTERM or Ctrl-C drains and exits 0. */
export async function serveCommand(flags: ServeFlags, version: string): Promise<number> {
  const {
    ctx: base,
    config,
    poolDir,
    notifier,
  } = await openServing(flags, 'serve', 'serve-state', say);
  const host = flags.host ?? config.serve.host ?? '127.0.0.1';
  const port = flags.port ?? config.serve.port ?? 8080;
  const ctx: ServeContext = { ...base, token: serverToken(flags, host) };
  const { registry, pool } = ctx;
  const workflows = await registry.rescan();
  await pool.recover();
  const mcp = new McpEndpoint(ctx, {
    version,
    waitSeconds: flags.wait ?? config.serve.mcp_wait ?? DEFAULT_WAIT_SECONDS,
  });
  const server = createServeServer(ctx, {
    mcp: mcp.handle,
    loopbackOnly: isLoopback(host),
    version,
    requestTimeoutMs:
      config.serve.request_timeout !== undefined
        ? config.serve.request_timeout * 1000
        : REQUEST_TIMEOUT_MS,
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      fail(
        new RaymondError(
          'ERR_USAGE',
          `cannot listen on ${host}:${port}: ${err.code ?? err.message}`,
        ),
      ),
    );
    server.listen(port, host, ok);
  });
  const address = server.address();
  const shownPort = typeof address === 'object' && address ? address.port : port;
  const resumed = pool.unfinished().length;
  say(
    `listening on http://${host.includes(':') ? `[${host}]` : host}:${shownPort}/ (${workflows.length} workflow(s); ${resumed} run(s) resumed from ${poolDir})`,
  );
  for (const id of flags.launch ?? config.serve.launch ?? []) {
    await startRun(ctx, { workflow_id: id }).then(
      (run) => say(`--launch ${id}: run ${run.id}`),
      (err: unknown) => say(`--launch ${id} failed: ${formatError(err)}`),
    );
  }

  // SIGTERM or Ctrl-C: no new run, running steps get a few seconds, then stop; a second signal stops them at once.
  await new Promise<void>((done) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) {
        say(`${signal} again: stopping every step now`);
        void pool.shutdown(0);
        return;
      }
      stopping = true;
      say(
        `${signal}: no new runs; running steps get a few seconds to finish, then stop (runs stay resumable)`,
      );
      // The MCP sessions' calls end with them; the runs they started stop with the pool's, resumable.
      const sessions = mcp.close();
      server.close();
      server.closeAllConnections();
      void sessions
        .then((n) => {
          if (n > 0) say(`closed ${n} MCP session(s)`);
        })
        .then(() => pool.shutdown())
        .then(() => {
          process.off('SIGTERM', onTerm);
          process.off('SIGINT', onInt);
          say('stopped');
          done();
        });
    };
    const onTerm = () => stop('SIGTERM');
    const onInt = () => stop('SIGINT');
    process.on('SIGTERM', onTerm);
    process.on('SIGINT', onInt);
  });
  await notifier?.close();
  return EXIT.completed;
}

/** `raymond serve list`: the runs of the serve pool, one id per line (sorted), without a server. */
export async function serveList(json: boolean): Promise<string> {
  const dir = join(projectRaymondDir(process.cwd()), 'serve-state');
  const ids = (await readdir(dir).catch(() => [] as string[]))
    .filter((n) => n.endsWith('.json'))
    .map((n) => n.slice(0, -5))
    .sort();
  if (!json) return ids.join('\n');
  const runs = await Promise.all(
    ids.map(async (id) => ({
      run_id: id,
      status:
        (await readStateFile(join(dir, `${id}.json`), id).catch(() => undefined))?.status ??
        'unreadable',
    })),
  );
  return JSON.stringify(runs);
}
