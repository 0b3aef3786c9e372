import { Queue } from 'bullmq';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { existsSync, statSync } from 'node:fs';
import { RaymondError } from '../errors.js';
import { loadQueueSecret } from '../queue/job-signing.js';
import { parseQueueUrl } from '../queue/queue-url.js';
import { closeRedis, openRedis, whenReady } from '../queue/redis-link.js';
import { KEY_PREFIX, QUEUE_NAMES } from '../queue/step-job.js';
import { startWorker } from '../queue/step-worker.js';
import { alive, listWorkers } from '../queue/worker-registry.js';
import { ignoreRaymondFolder } from '../raymond-folder.js';
import { workerSlots } from '../settings/run-settings.js';
import { machineSettingValues } from '../settings/setting-values.js';
import { EXIT } from './exit-codes.js';

/** `raymond worker`'s flags. */
export interface WorkerFlags {
  queue: string;
  concurrency?: number;
  name?: string;
  workdir?: string;
  queueSecretFile?: string;
  /** The backends' machine settings (`--claude-bin`), by commander's names. */
  [machineFlag: string]: unknown;
}

/** How long a job's lock lasts by default: a killed worker's job is taken by another after about this long. */
const DEFAULT_STALL_MS = 30_000;

function stallMs(): number {
  const raw = process.env.RAYMOND_QUEUE_STALL_MS;
  if (raw === undefined) return DEFAULT_STALL_MS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 500)
    throw new RaymondError(
      'ERR_USAGE',
      `RAYMOND_QUEUE_STALL_MS="${raw}": expected a whole number of milliseconds, 500 or more`,
    );
  return n;
}

const say = (line: string) => process.stderr.write(`raymond worker: ${line}\n`);

/**
 * `raymond worker --queue URL`: runs steps of queued runs on this machine
 * until Ctrl-C or SIGTERM, which let running steps end as a killed step
 * does (the coordinator retries them elsewhere).
 */
export async function workerCommand(flags: WorkerFlags): Promise<number> {
  const target = parseQueueUrl(flags.queue);
  const secret = loadQueueSecret(flags.queueSecretFile);
  const workdir = resolve(flags.workdir ?? process.cwd());
  if (!existsSync(workdir) || !statSync(workdir).isDirectory())
    throw new RaymondError('ERR_USAGE', `--workdir ${workdir} is not a folder`);
  await ignoreRaymondFolder(join(workdir, '.raymond'));
  const worker = await startWorker({
    target,
    secret,
    workdir,
    name: flags.name ?? `${hostname()}-${process.pid}`,
    concurrency: flags.concurrency ?? workerSlots(),
    machineSettings: machineSettingValues(flags),
    cache: join(workdir, '.raymond', 'queue-cache'),
    stallMs: stallMs(),
    log: say,
  });
  const why = await Promise.race([
    new Promise<undefined>((done) => {
      process.once('SIGINT', () => done(undefined));
      process.once('SIGTERM', () => done(undefined));
    }),
    worker.stopped,
  ]);
  if (why === undefined) say('stopping');
  await worker.close();
  // A secret that is not the runs': one line (the CLI entry prints it) and no job taken.
  if (why) throw why;
  return EXIT.interrupted;
}

function ago(ms: number): string {
  return ms < 1000
    ? 'now'
    : ms < 120_000
      ? `${Math.round(ms / 1000)} s ago`
      : `${Math.round(ms / 60_000)} min ago`;
}

/** How long `raymond workers` waits for Redis: it answers, or says in one line that it cannot. */
const LOOK_MS = 10_000;

/** `raymond workers --queue URL`: the workers that beat within a day, with their load, and the queue's counts. */
export async function workersCommand(flags: { queue: string; json?: boolean }): Promise<string> {
  const target = parseQueueUrl(flags.queue);
  const redis = openRedis(target, () => undefined, 'raymond-workers');
  await whenReady(redis, target, LOOK_MS);
  const queues = QUEUE_NAMES.map(
    (name) => new Queue(name, { connection: redis, prefix: KEY_PREFIX }),
  );
  try {
    const now = Date.now();
    const workers = await listWorkers(redis, now);
    const counts = { waiting: 0, active: 0, delayed: 0, completed: 0, failed: 0 };
    for (const queue of queues) {
      const kinds = Object.keys(counts) as Array<keyof typeof counts>;
      const one = await queue.getJobCounts(...kinds);
      for (const k of kinds) counts[k] += one[k] ?? 0;
    }
    if (flags.json)
      return JSON.stringify({
        workers: workers.map((w) => ({ ...w, alive: alive(w, now) })),
        jobs: counts,
      });
    const lines = workers.map(
      (w) =>
        `${w.name}  ${alive(w, now) ? 'alive' : 'gone '}  ${w.active}/${w.concurrency} busy${w.waiting ? ` (${w.waiting} waiting)` : ''}  ${w.done} done  ${w.failed} failed  on ${w.host} pid ${w.pid}  (beat ${ago(now - w.beatAt)})`,
    );
    if (lines.length === 0) lines.push(`no worker has beaten at ${target.shown} in the last day`);
    lines.push(
      `jobs: ${counts.waiting} waiting, ${counts.active} running, ${counts.delayed} delayed, ${counts.completed} done, ${counts.failed} failed`,
    );
    return lines.join('\n');
  } finally {
    await Promise.all(queues.map((q) => q.close().catch(() => undefined)));
    await closeRedis(redis);
  }
}
