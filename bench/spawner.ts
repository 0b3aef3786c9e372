import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runProcess } from '../src/executors/run-process.js';
import { writeScripts } from './write-scripts.js';

export interface SpawnerFigures {
  steps: number;
  parallel: number;
  /** RSS of this process while measuring, inflated to look like a busy orchestrator. */
  benchRssMb: number;
  plainMsPerStep: number;
  poolMsPerStep: number;
  execaMsPerStep: number;
  /** Time from creating the pool to the first step's result, spawner start included. */
  poolFirstStepMs: number;
  /** RSS of each spawner after the run. */
  spawnerRssMb: number[];
}

type PoolModule = typeof import('../src/executors/spawner-pool.js');

/** The built pool when there is one: its spawners then run compiled, without tsx, as users run them. */
async function loadPool(): Promise<PoolModule> {
  const built = new URL('../dist/src/executors/spawner-pool.js', import.meta.url);
  return existsSync(built)
    ? ((await import(built.href)) as PoolModule)
    : import('../src/executors/spawner-pool.js');
}

async function inLanes(
  n: number,
  parallel: number,
  step: (i: number) => Promise<void>,
): Promise<number> {
  const started = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < n) await step(++next);
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  return performance.now() - started;
}

function rssMb(pid: number | 'self'): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
}

/**
 * The cost of one trivial script step three ways, from a process inflated to
 * ~150 MB so that forking it costs what forking a busy orchestrator costs:
 * a plain child_process.spawn loop, the spawner pool, and execa's runProcess.
 */
export async function benchSpawner(n: number, parallel: number): Promise<SpawnerFigures> {
  const ballast: Buffer[] = [];
  // Filled, so the pages are really there for fork to copy the tables of.
  while (process.memoryUsage().rss < 150 * 2 ** 20) ballast.push(Buffer.alloc(2 ** 20, 1));
  const dir = mkdtempSync(join(tmpdir(), 'raymond-bench-spawner-'));
  const { createSpawnerPool } = await loadPool();
  const pool = createSpawnerPool({ size: parallel });
  try {
    writeScripts(dir, { 'STEP.sh': '#!/usr/bin/env bash\necho "<result>$i</result>"\n' });
    const script = join(dir, 'STEP.sh');
    const request = (i: number) => ({
      file: 'bash',
      args: [script],
      cwd: dir,
      env: { i: String(i) },
      signal: new AbortController().signal,
      inactivityMs: 60_000,
    });
    const check = (r: { exitCode: number | null }) => {
      if (r.exitCode !== 0) throw new Error(`bench step failed: ${JSON.stringify(r)}`);
    };
    const first = performance.now();
    check(await pool.run(request(0)));
    const poolFirstStepMs = performance.now() - first;
    // Warm every lane: all spawners started, every code path compiled.
    await inLanes(4 * parallel, parallel, async (i) => check(await pool.run(request(i))));
    // A plain spawn from this (big) process: what the orchestrator paid per step before the spawners.
    const plainMs = await inLanes(
      n,
      parallel,
      (i) =>
        new Promise<void>((ok, fail) => {
          const child = spawn('bash', [script], {
            env: { ...process.env, i: String(i) },
            stdio: ['ignore', 'pipe', 'pipe'],
            detached: true,
          });
          child.stdout.resume();
          child.stderr.resume();
          child.on('error', fail);
          child.on('close', () => ok());
        }),
    );
    const poolMs = await inLanes(n, parallel, async (i) => check(await pool.run(request(i))));
    const execaMs = await inLanes(n, parallel, async (i) => check(await runProcess(request(i))));
    return {
      steps: n,
      parallel,
      benchRssMb: rssMb('self'),
      plainMsPerStep: plainMs / n,
      poolMsPerStep: poolMs / n,
      execaMsPerStep: execaMs / n,
      poolFirstStepMs,
      spawnerRssMb: pool.stats().spawners.map((s) => rssMb(s.pid!)),
    };
  } finally {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
    ballast.length = 0;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const n = Number(process.argv[2] ?? 2000);
  const parallel = Number(process.argv[3] ?? Math.max(2, availableParallelism()));
  const f = await benchSpawner(n, parallel);
  const ms = (x: number) => `${x.toFixed(2)} ms/step`;
  console.log(
    `spawner: ${f.steps} trivial bash steps, parallel ${f.parallel}, from a ${f.benchRssMb.toFixed(0)} MB process`,
  );
  console.log(
    `  plain spawn ${ms(f.plainMsPerStep)}, spawner pool ${ms(f.poolMsPerStep)}, execa runProcess ${ms(f.execaMsPerStep)}`,
  );
  console.log(
    `  pool first step ${f.poolFirstStepMs.toFixed(0)} ms; spawner RSS ${f.spawnerRssMb.map((x) => x.toFixed(0)).join(', ')} MB`,
  );
}
