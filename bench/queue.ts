import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiServer } from '../test/helpers/api-server.js';
import { QueueWorkers, TEST_SECRET } from '../test/helpers/queue-workers.js';
import { startRedis, type RedisServer } from '../test/helpers/redis.js';
import { runCli } from './measure-cli.js';
import { tailOf } from './tail.js';
import { writeScripts } from './write-scripts.js';

const BIN_DIR = fileURLToPath(new URL('../node_modules/.bin', import.meta.url));
/** The workers' lock lasts as long as a real deployment's (the test helper's 1.5 s would let a loaded machine's jobs stall and run twice). */
const WORKER_ENV = { RAYMOND_QUEUE_STALL_MS: '30000' };
const COMMON = ['--no-debug', '--quiet', '--budget', '0'];
/** How often the machine is looked at during a run: rarely enough not to compete for the 2 cores. */
const LOOK_MS = 250;
/** /proc/stat counts in USER_HZ, 100 on Linux whatever the kernel's own tick. */
const TICKS_PER_SECOND = 100;

/** What held a configuration back, as seen on this machine (the workers, their claude processes and Redis all share it). */
export interface MachineLook {
  /** Most Claude Code processes alive at once, and most RSS they held together (not necessarily in the same sample). */
  peakClaudes: number;
  peakClaudeMb: number;
  /** Least MemAvailable seen. */
  minAvailableMb: number;
  /** Share of all cores' time spent busy over the run (1 = every core busy throughout). */
  cpuBusy: number;
  /** CPU time the whole machine spent over the run, in seconds. */
  cpuSeconds: number;
}

/** One worker count of the fan-out. */
export interface FanoutRun extends MachineLook {
  workers: number;
  wallMs: number;
  /** Steps that ran (turns the API answered, scripts that logged): more than the agents means some ran twice. */
  turns: number;
}

/** Every run of one worker count: the median of those that succeeded (none if none did), and why the others failed. */
export interface FanoutCount {
  workers: number;
  median: FanoutRun | undefined;
  walls: number[];
  failures: string[];
}

export interface QueueFanoutFigures {
  kind: 'markdown' | 'script';
  agents: number;
  concurrency: number;
  delayMs: number;
  rounds: number;
  counts: FanoutCount[];
}

/**
 * A script `<goto>` chain run locally and through the queue: wall times of
 * the chain (`steps` steps more than the one-step run) and of a one-step run
 * (the fixed cost), so a step costs (wallMs - fixedMs) / steps.
 */
export interface QueueChainFigures {
  steps: number;
  local: { wallMs: number; fixedMs: number };
  queue: { wallMs: number; fixedMs: number };
}

function cpuTicks(): { busy: number; total: number } {
  const t = readFileSync('/proc/stat', 'utf8')
    .split('\n', 1)[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const total = t.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - t[3]! - t[4]!, total };
}

function availableMb(): number {
  const m = /MemAvailable:\s+(\d+) kB/.exec(readFileSync('/proc/meminfo', 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** Samples, until stopped, the claude processes whose HOME lies under `root`, the free memory and the CPU. */
function lookAtMachine(root: string): { stop(): MachineLook } {
  let stopped = false;
  const look: MachineLook = {
    peakClaudes: 0,
    peakClaudeMb: 0,
    minAvailableMb: availableMb(),
    cpuBusy: 0,
    cpuSeconds: 0,
  };
  const cpu0 = cpuTicks();
  const sample = () => {
    let n = 0;
    let kb = 0;
    for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
      try {
        if (!readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('claude')) continue;
        if (!readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`HOME=${root}/`)) continue;
        n++;
        kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      } catch {
        // Gone meanwhile.
      }
    }
    look.peakClaudes = Math.max(look.peakClaudes, n);
    look.peakClaudeMb = Math.max(look.peakClaudeMb, kb / 1024);
    look.minAvailableMb = Math.min(look.minAvailableMb, availableMb());
  };
  const timer = setInterval(sample, LOOK_MS);
  return {
    /** The figures; the first call ends the sampling. */
    stop() {
      if (stopped) return look;
      stopped = true;
      clearInterval(timer);
      const cpu1 = cpuTicks();
      look.cpuBusy = (cpu1.busy - cpu0.busy) / Math.max(1, cpu1.total - cpu0.total);
      look.cpuSeconds = (cpu1.busy - cpu0.busy) / TICKS_PER_SECOND;
      return look;
    },
  };
}

/** Runs the built CLI in `cwd`; throws with the end of its stderr if it fails. */
async function raymond(
  what: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const run = await runCli([...args, ...COMMON], { cwd, env, timeoutMs: 600_000 });
  if (run.code !== 0)
    throw new Error(
      `${what} exited with ${run.code ?? run.signal}${run.timedOut ? ' (timed out)' : ''}: ${tailOf(run.stderr)}`,
    );
  return run.wallMs;
}

/** A fresh Redis, `count` workers of `concurrency` each started and taking jobs; both gone after `body`, even if it throws. */
async function withWorkers<T>(
  dir: string,
  count: number,
  concurrency: number,
  env: (home: string) => Record<string, string>,
  body: (redis: RedisServer) => Promise<T>,
): Promise<T> {
  const redis = await startRedis();
  if (!redis) throw new Error('redis-server is not installed (apt-get install -y redis-server)');
  const workers = new QueueWorkers(redis.url, dir, env);
  try {
    await Promise.all(
      Array.from({ length: count }, (_, i) =>
        workers.start(`w${i + 1}`, { concurrency, extraEnv: WORKER_ENV }),
      ),
    );
    return await body(redis);
  } finally {
    await workers.stopAll();
    await redis.stop();
  }
}

/**
 * `agents` workers forked by START.sh, each one step that waits `delayMs`:
 * a markdown turn through the real claude (the scripted API answering after
 * `delayMs`, standing in for a model) or, as a control that needs no CPU, a
 * script sleeping as long. Run through the queue by 1, 2, 4... worker
 * processes of `concurrency` slots each, with a fresh Redis and fresh
 * workers per run, started before the clock starts. Each count is run
 * `rounds` times; its median run (by wall time) among those that succeeded
 * is the figure.
 */
export async function benchQueueFanout(
  kind: 'markdown' | 'script',
  agents: number,
  workerCounts: number[],
  concurrency: number,
  delayMs: number,
  rounds = 3,
): Promise<QueueFanoutFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'raymond-queue-fan-'));
  const server = await new ApiServer().start();
  server.on('Summarize item', (r) => ({
    text: `<result>${/item (\d+)/.exec(r.prompt)?.[1]}</result>`,
    delayMs,
  }));
  const step = kind === 'markdown' ? 'W.md' : 'W.sh';
  const once = async (root: string, count: number): Promise<FanoutRun> => {
    const wf = join(root, 'workflow');
    const ran = join(root, 'ran.log');
    mkdirSync(join(root, 'home'), { recursive: true });
    mkdirSync(wf);
    writeScripts(wf, {
      'START.sh': `#!/usr/bin/env bash\nfor i in $(seq 1 ${agents}); do printf '<fork next="END" i="%s">${step}</fork>' "$i"; done\n`,
      'END.sh': '#!/usr/bin/env bash\necho "<result>done</result>"\n',
      ...(kind === 'markdown'
        ? { 'W.md': 'Summarize item {{i}}.' }
        : {
            'W.sh': `#!/usr/bin/env bash\nsleep ${delayMs / 1000}\necho "$i" >> ${ran}\necho "<result>$i</result>"\n`,
          }),
    });
    const workerEnv = (home: string) => ({
      ...server.env(home),
      PATH: `${BIN_DIR}${delimiter}${process.env.PATH}`,
    });
    return withWorkers(root, count, concurrency, workerEnv, async (redis) => {
      const before = server.requestsFor('Summarize item').length;
      const env = {
        ...process.env,
        ...server.env(join(root, 'home')),
        RAYMOND_QUEUE_SECRET: TEST_SECRET,
        IS_SANDBOX: '1',
      };
      const look = lookAtMachine(root);
      const wallMs = await raymond(
        `the coordinator with ${count} workers`,
        [wf, '--queue', redis.url, '--dangerously-skip-permissions', '--max-parallel', '64'],
        root,
        env,
      ).finally(() => look.stop());
      const turns =
        kind === 'markdown'
          ? server.requestsFor('Summarize item').length - before
          : readFileSync(ran, 'utf8').split('\n').filter(Boolean).length;
      return { workers: count, wallMs, turns, ...look.stop() };
    });
  };
  try {
    // Rounds go 1, 2, 4, 1, 2, 4... so that a slow spell of the machine falls on every count alike.
    const counts = workerCounts.map((workers): FanoutCount & { runs: FanoutRun[] } => ({
      workers,
      median: undefined,
      walls: [],
      failures: [],
      runs: [],
    }));
    for (let round = 0; round < rounds; round++) {
      for (const c of counts) {
        // A failed run is reported and the others go on: one failure should not hide every figure.
        await once(join(dir, `round-${round}-workers-${c.workers}`), c.workers).then(
          (r) => c.runs.push(r),
          (err: unknown) => c.failures.push(err instanceof Error ? err.message : String(err)),
        );
      }
    }
    return {
      kind,
      agents,
      concurrency,
      delayMs,
      rounds,
      counts: counts.map(({ runs, ...c }) => ({
        ...c,
        walls: runs.map((r) => r.wallMs),
        median: runs.sort((a, b) => a.wallMs - b.wallMs)[Math.floor(runs.length / 2)],
      })),
    };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The median of a few runs, so that one slow start does not decide a figure. */
async function median(times: number, run: () => Promise<number>): Promise<number> {
  const walls: number[] = [];
  for (let i = 0; i < times; i++) walls.push(await run());
  return walls.sort((a, b) => a - b)[Math.floor(walls.length / 2)]!;
}

/**
 * A chain of `steps` `<goto>` script steps (START.sh counting $RAYMOND_INPUT
 * down to 0), run locally and through the queue with one worker; each also
 * as a one-step run, whose wall time is the fixed cost (start-up, connecting)
 * to take off before dividing by the steps.
 */
export async function benchQueueChain(steps: number, repeats = 3): Promise<QueueChainFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'raymond-queue-chain-'));
  try {
    const wf = join(dir, 'workflow');
    mkdirSync(wf);
    writeScripts(wf, {
      'START.sh':
        '#!/usr/bin/env bash\nn=${RAYMOND_INPUT:-0}\nif [ "$n" -le 0 ]; then echo "<result>done</result>"; else echo "<goto input=\\"$((n - 1))\\">START.sh</goto>"; fi\n',
    });
    const env = { ...process.env, RAYMOND_QUEUE_SECRET: TEST_SECRET };
    const chain = (extra: string[], n: number) =>
      median(repeats, () =>
        raymond(`a ${n}-step chain`, [wf, '--input', String(n), ...extra], dir, env),
      );
    const local = { wallMs: await chain([], steps), fixedMs: await chain([], 0) };
    const queue = await withWorkers(
      join(dir, 'queue'),
      1,
      1,
      (home) => ({ HOME: home }),
      async (redis) => ({
        wallMs: await chain(['--queue', redis.url], steps),
        fixedMs: await chain(['--queue', redis.url], 0),
      }),
    );
    return { steps, local, queue };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
