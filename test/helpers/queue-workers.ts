import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { execa, type ResultPromise } from 'execa';
import { CLI } from './cli.js';
import { startRedis, type RedisServer } from './redis.js';

/** The secret the tests' coordinators and workers share. */
export const TEST_SECRET = 'test-secret-0123456789abcdef';

/** A `raymond worker` process standing in for a machine: its own HOME and --workdir. */
export interface WorkerProcess {
  name: string;
  home: string;
  workdir: string;
  pid: number;
  /** What it printed so far. */
  log(): string;
  /** Kills it at once (SIGKILL), as a machine that goes away. */
  kill(): Promise<void>;
}

/**
 * Starts and stops the workers of a test. Each is the built CLI's
 * `raymond worker`, so the tests run exactly what users run.
 */
export class QueueWorkers {
  private readonly procs: Array<{ proc: ResultPromise; handle: WorkerProcess }> = [];

  constructor(
    private readonly url: string,
    private readonly dir: string,
    /** Environment of every worker (the API server's, PATH with claude...), given its HOME. */
    private readonly env: (home: string) => Record<string, string> = (home) => ({ HOME: home }),
  ) {}

  /** Starts a worker and waits until it takes jobs. `workdir` defaults to a folder of its own. */
  async start(
    name: string,
    opts: {
      /** `--concurrency`: 4 unless given; null leaves the flag out (the worker's default). */
      concurrency?: number | null;
      workdir?: string;
      extraEnv?: Record<string, string>;
      args?: string[];
    } = {},
  ): Promise<WorkerProcess> {
    const home = join(this.dir, `home-${name}`);
    const workdir = opts.workdir ?? join(this.dir, `workdir-${name}`);
    mkdirSync(home, { recursive: true });
    mkdirSync(workdir, { recursive: true });
    const args = [
      CLI,
      'worker',
      '--queue',
      this.url,
      '--name',
      name,
      '--workdir',
      workdir,
      ...(opts.concurrency === null ? [] : ['--concurrency', String(opts.concurrency ?? 4)]),
      ...(opts.args ?? []),
    ];
    const proc = execa(process.execPath, args, {
      cwd: workdir,
      env: {
        RAYMOND_QUEUE_SECRET: TEST_SECRET,
        RAYMOND_QUEUE_STALL_MS: '1500',
        IS_SANDBOX: '1',
        ...this.env(home),
        ...opts.extraEnv,
      },
      reject: false,
      stdin: 'ignore',
      all: true,
      buffer: true,
    });
    let out = '';
    proc.all.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const handle: WorkerProcess = {
      name,
      home,
      workdir,
      pid: proc.pid!,
      log: () => out,
      kill: async () => {
        proc.kill('SIGKILL');
        await proc.catch(() => undefined);
      },
    };
    this.procs.push({ proc, handle });
    const deadline = Date.now() + 15_000;
    while (!out.includes('is taking steps from')) {
      if (Date.now() > deadline || proc.exitCode !== null)
        throw new Error(`worker ${name} did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return handle;
  }

  /** Stops every worker still running. */
  async stopAll(): Promise<void> {
    for (const { proc } of this.procs) proc.kill('SIGTERM');
    await Promise.all(this.procs.map(({ proc }) => proc.catch(() => undefined)));
    this.procs.length = 0;
  }
}

/** A test file's Redis and workers: `redis` is undefined when redis-server is not installed. */
export interface QueueWorld {
  redis?: RedisServer;
  workers: QueueWorkers;
}

/**
 * Starts the file's agent sandbox and a redis-server before its tests, and
 * stops its workers, Redis and sandbox after them. `env` is each worker's
 * environment, given its HOME (each worker is a machine of its own).
 */
export function queueWorld(
  box: { start(): Promise<unknown>; stop(): Promise<unknown>; dir: string },
  env: (home: string) => Record<string, string>,
): QueueWorld {
  const world = {} as QueueWorld;
  before(async () => {
    await box.start();
    world.redis = await startRedis();
    if (world.redis) world.workers = new QueueWorkers(world.redis.url, box.dir, env);
  });
  after(async () => {
    await world.workers?.stopAll();
    await world.redis?.stop();
    await box.stop();
  });
  return world;
}
