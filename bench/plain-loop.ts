import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SPAWNER_FLAGS } from '../src/executors/spawner-link.js';
import { cliNodeFlags } from './measure-cli.js';
import { measureProcess } from './measure-process.js';
import { tailOf } from './tail.js';

const HELPER = fileURLToPath(new URL('./plain-loop.mjs', import.meta.url));
/** The built spawner, as the built CLI starts it. */
const SPAWNER = fileURLToPath(new URL('../dist/src/executors/spawner.main.js', import.meta.url));

/** A script the plain loop runs `runs` times; a worker's run k gets `i=k`, as a fork attribute. */
export interface PlainJob {
  script: string;
  runs: number;
  worker: boolean;
}

/** The plain loop's figures for one shape. */
export interface PlainLoopRun {
  /** From spawning the helper to its exit, measured as Raymond's run is. */
  wallMs: number;
  /** The loop alone, as the helper timed it (no Node start-up). */
  loopMs: number;
  runs: number;
  /** The helper process's own CPU time (user + system), its children's not counted. */
  cpuMs: number;
  /** The helper's peak RSS, in MB: it is meant to stay small. */
  peakRssMb: number;
}

/**
 * Runs the jobs' scripts at `lanes` at once in a separate small Node
 * process (plain-loop.mjs, with the bin's Node flags) and times it. Throws, with the end of its
 * stderr, when the helper fails or any script run does. With `floor`, the
 * runs go through Raymond's spawner processes and each is journalled, with
 * nothing else of Raymond's: the least any orchestrator over them can cost.
 */
export async function runPlainLoop(
  jobs: PlainJob[],
  lanes: number,
  opts: { cwd: string; timeoutMs: number; floor?: boolean },
): Promise<PlainLoopRun> {
  const floor = opts.floor
    ? { spawner: SPAWNER, flags: DEFAULT_SPAWNER_FLAGS, journal: join(opts.cwd, 'floor.journal') }
    : undefined;
  // Raymond's GC flags keep the helper as small as they keep the orchestrator.
  const run = await measureProcess(
    process.execPath,
    [...cliNodeFlags(), HELPER, JSON.stringify({ lanes, jobs, floor })],
    { cwd: opts.cwd, timeoutMs: opts.timeoutMs, captureStdout: true },
  );
  if (run.code !== 0 || run.timedOut)
    throw new Error(
      `${floor ? 'floor' : 'plain loop'} ${run.timedOut ? 'timed out' : `exited with ${run.code ?? run.signal}`}: ${tailOf(run.stderr)}`,
    );
  const report = JSON.parse(run.stdout) as {
    loopMs: number;
    runs: number;
    failed: number;
    cpuMs: number;
  };
  if (report.failed > 0)
    throw new Error(
      `${floor ? 'floor' : 'plain loop'}: ${report.failed} of ${report.runs} script runs failed`,
    );
  return {
    wallMs: run.wallMs,
    loopMs: report.loopMs,
    runs: report.runs,
    cpuMs: report.cpuMs,
    peakRssMb: run.memory.aloneMb,
  };
}
