import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FanoutShape } from './fanout-shapes.js';
import { runCli } from './measure-cli.js';
import type { MemoryPeaks } from './memory-sampler.js';
import { runPlainLoop } from './plain-loop.js';
import { tailOf } from './tail.js';

/** One shape's figures: Raymond's run and the plain loop's, same run, same machine. */
export interface FanoutFigures {
  shape: FanoutShape;
  parallel: number;
  /** Script runs, dispatcher steps included: the same number in both runs. */
  steps: number;
  /** cpuMs: the orchestrator process's own CPU (its threads, not its spawners or scripts), as --verbose reports it. */
  raymond: { wallMs: number; memory: MemoryPeaks; cpuMs: number };
  plain: { wallMs: number; loopMs: number; peakRssMb: number; cpuMs: number };
  /** The same runs through Raymond's spawners from a minimal loop that journals each (plain-loop.mjs). */
  floor: { wallMs: number; cpuMs: number };
  /**
   * Raymond's wall time over the plain loop's, both from spawn to exit as
   * the bench sees them: each pays its Node start-up, as a user would.
   */
  ratio: number;
  /** What the CLI (--verbose) reports having written to its state folder, per step. */
  stateBytesPerStep: number;
  /** The finished run's state file (snapshot; the journal is folded in at the end). */
  stateFileBytes: number;
  /** Folders left under `.raymond/tasks` (the shapes never use one). */
  taskFolders: number;
}

/** Entries under `dir`, folders and files, at any depth; 0 when it does not exist. */
function countEntries(dir: string): number {
  if (!existsSync(dir)) return 0;
  return readdirSync(dir, { recursive: true }).length;
}

/** Generous: a stuck run must not stall the bench, a slow machine must not fail it. */
const timeoutMs = (steps: number) => 60_000 + steps * 20;

/**
 * One shape through the built CLI with default options (debug logs on),
 * and the same script runs in the plain loop, at the same parallelism, in
 * the same run. Throws, with the end of stderr, when either run fails.
 */
export async function benchFanout(shape: FanoutShape, parallel: number): Promise<FanoutFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'raymond-bench-'));
  // The workflow in a folder of its own: the run's cwd holds .raymond/ (state, debug logs).
  const workflow = join(dir, 'workflow');
  mkdirSync(workflow);
  try {
    const jobs = shape.write(workflow);
    const steps = jobs.reduce((n, job) => n + job.runs, 0);
    const plain = await runPlainLoop(jobs, parallel, { cwd: dir, timeoutMs: timeoutMs(steps) });
    shape.write(workflow);
    const floor = await runPlainLoop(jobs, parallel, {
      cwd: dir,
      timeoutMs: timeoutMs(steps),
      floor: true,
    });
    shape.write(workflow);
    const run = await runCli(
      [workflow, '--max-parallel', String(parallel), '--quiet', '--verbose'],
      { cwd: dir, timeoutMs: timeoutMs(steps) },
    );
    if (run.code !== 0 || run.timedOut) {
      throw new Error(
        `raymond ${run.timedOut ? `timed out after ${(timeoutMs(steps) / 1000).toFixed(0)} s` : `exited with ${run.code ?? run.signal}`}: ${tailOf(run.stderr)}`,
      );
    }
    const bytes = Number(/writes \(\d+ snapshots\), (\d+) bytes/.exec(run.stderr)?.[1] ?? NaN);
    const cpuMs = Number(/orchestrator: CPU (\d+) ms/.exec(run.stderr)?.[1] ?? NaN);
    const stateDir = join(dir, '.raymond/state');
    const stateFile = readdirSync(stateDir).find((f) => f.endsWith('.json'));
    return {
      shape,
      parallel,
      steps,
      raymond: { wallMs: run.wallMs, memory: run.memory, cpuMs },
      plain: {
        wallMs: plain.wallMs,
        loopMs: plain.loopMs,
        peakRssMb: plain.peakRssMb,
        cpuMs: plain.cpuMs,
      },
      floor: { wallMs: floor.wallMs, cpuMs: floor.cpuMs },
      ratio: run.wallMs / plain.wallMs,
      stateBytesPerStep: bytes / steps,
      stateFileBytes: stateFile ? statSync(join(stateDir, stateFile)).size : NaN,
      taskFolders: countEntries(join(dir, '.raymond/tasks')),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
