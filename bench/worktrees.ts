import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { branchCommits, cloneRepo, diskKb, generateRepo, type BenchRepo } from './git-repo.js';
import { CLI, runCli } from './measure-cli.js';
import { measureProcess } from './measure-process.js';
import { tailOf } from './tail.js';
import { SPARSE_RATIO_TARGET, WORKTREE_RATIO_TARGET, WORKTREE_SLACK } from './targets.js';
import { sampleWorktrees, type WorktreePeaks } from './worktree-sampler.js';
import {
  worktreeWorkers,
  writeWorktreeWorkflow,
  type WorktreeWorker,
} from './worktree-workflow.js';

/** The issue's `--max-parallel`, whatever the machine: the alive and disk targets are stated against it. */
export const WORKTREE_PARALLEL = 4;

/** One figure of the issue's targets. */
export interface WorktreeFigureSpec {
  id: string;
  title: string;
  workers: number;
  sparse: boolean;
  /** The plain git loop it is compared with, and the ratio it must keep; none for the disk-only figure. */
  baseline?: { mode: 'reuse' | 'sparse'; ratioTarget: number };
  /** Stop Raymond's run once its worktrees pass this many checkouts (default DISK_CAP_CHECKOUTS). */
  diskCapCheckouts?: number;
}

export const WORKTREE_FIGURES: WorktreeFigureSpec[] = [
  {
    id: 'reuse',
    title: '40 workers, full checkouts',
    workers: 40,
    sparse: false,
    baseline: { mode: 'reuse', ratioTarget: WORKTREE_RATIO_TARGET },
  },
  // Only its disk and alive peaks count: once past twice its disk target it has
  // missed it, and a build with a checkout per agent would fill 16 GB and take
  // many minutes on a machine others share, so the bench stops it there.
  {
    id: 'many',
    title: '200 workers, full checkouts',
    workers: 200,
    sparse: false,
    diskCapCheckouts: 2 * (WORKTREE_PARALLEL + WORKTREE_SLACK),
  },
  {
    id: 'sparse',
    title: '40 workers, sparse="pkg/<one package>"',
    workers: 40,
    sparse: true,
    baseline: { mode: 'sparse', ratioTarget: SPARSE_RATIO_TARGET },
  },
];

/** Raymond's run of one figure. */
export interface RaymondWorktreeRun {
  wallMs: number;
  peaks: WorktreePeaks;
  /** Set when the run was stopped for passing the disk cap: its peaks are then lower bounds. */
  stoppedAtKb?: number;
  /** The commits as git sees them after the run: a line, starting with FAILED when wrong. */
  check: string;
}

/** One figure's figures; `plain` is absent for the disk-only figure. */
export interface WorktreeFigures {
  raymond: RaymondWorktreeRun;
  plain?: { wallMs: number; loopMs: number; diskKb: number; check: string };
}

export type WorktreeOutcome =
  | { spec: WorktreeFigureSpec; figures: WorktreeFigures }
  | { spec: WorktreeFigureSpec; error: string };

/** What every figure shares: the generated repository and how this build is run. */
export interface WorktreeBench {
  repo: BenchRepo;
  /** `--worktrees` value passed, or undefined when this build has no such flag. */
  mode?: string;
  generateMs: number;
  /** Where the repository and the figures' clones live; removed by `dispose`. */
  root: string;
  dispose(): void;
}

const HELPER = fileURLToPath(new URL('./worktree-loops.mjs', import.meta.url));
/**
 * By default a run is stopped once its worktrees pass this many checkouts:
 * more than a 40-worker figure fills with a checkout per agent (the figure
 * the issue starts from), little enough for a disk other people share.
 */
const DISK_CAP_CHECKOUTS = 50;
/**
 * Generous: a stuck run must not stall the bench, and a slow machine must
 * not fail it (a full checkout took from 1.5 to 15 s on the shared 2-core one).
 */
const timeoutMs = (workers: number) => 120_000 + workers * 15_000;

/**
 * Generates the repository once and asks the built CLI whether it takes
 * `--worktrees`: with it, the figures use keep-ignored (the default, named
 * so that the figure says what it measures, and what the plain loop's
 * `git clean -fd` does); without it, they measure per-agent worktrees.
 */
export function prepareWorktreeBench(): WorktreeBench {
  const root = mkdtempSync(join(tmpdir(), 'raymond-wt-bench-'));
  const t0 = performance.now();
  const repo = generateRepo(join(root, 'repo'));
  const generateMs = performance.now() - t0;
  const help = execFileSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' });
  const mode = help.includes('--worktrees') ? 'keep-ignored' : undefined;
  return {
    repo,
    mode,
    generateMs,
    root,
    dispose: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** "40 branches, one commit each", or a FAILED line saying what is wrong. */
function checkCommits(
  clone: string,
  prefix: string,
  bench: WorktreeBench,
  workers: number,
): string {
  const { branches, wrong } = branchCommits(clone, prefix, bench.repo.base);
  if (branches === workers && wrong.length === 0)
    return `${branches} branches ${prefix}*, one commit each over the base`;
  return `FAILED: ${branches} branches ${prefix}* (expected ${workers}), ${wrong.length} without exactly one commit over the base${wrong.length ? ` (${wrong.slice(0, 3).join(', ')})` : ''}`;
}

/**
 * The plain loop in a fresh clone: a small Node process (worktree-loops.mjs)
 * timed from spawn to exit, as Raymond's run is. Throws when it fails.
 */
async function runPlain(
  bench: WorktreeBench,
  dir: string,
  mode: string,
  workers: WorktreeWorker[],
): Promise<NonNullable<WorktreeFigures['plain']>> {
  const clone = cloneRepo(bench.repo, join(dir, 'clone'));
  const workflow = join(dir, 'workflow');
  const worktrees = join(dir, 'worktrees');
  mkdirSync(workflow);
  mkdirSync(worktrees);
  const script = writeWorktreeWorkflow(workflow, workers);
  const job = { mode, repo: clone, dir: worktrees, base: bench.repo.base, script, workers };
  // Sampled as Raymond's run is, so that both pay the same for the sampling's `du`s on a small machine.
  const sampler = sampleWorktrees(worktrees);
  const run = await measureProcess(process.execPath, [HELPER, JSON.stringify(job)], {
    cwd: clone,
    captureStdout: true,
    timeoutMs: timeoutMs(workers.length),
  });
  await sampler.stop();
  if (run.code !== 0 || run.timedOut)
    throw new Error(
      `plain ${mode} loop ${run.timedOut ? 'timed out' : `exited with ${run.code ?? run.signal}`}: ${tailOf(run.stderr)}`,
    );
  const { loopMs } = JSON.parse(run.stdout) as { loopMs: number };
  return {
    wallMs: run.wallMs,
    loopMs,
    diskKb: diskKb(worktrees),
    check: checkCommits(clone, 'bench/', bench, workers.length),
  };
}

/**
 * Raymond in a fresh clone, run from inside it with the built CLI, while the
 * sampler watches `.raymond/worktrees`. Throws when the run fails, unless
 * the bench stopped it at the disk cap.
 */
async function runRaymond(
  bench: WorktreeBench,
  dir: string,
  spec: WorktreeFigureSpec,
  workers: WorktreeWorker[],
): Promise<RaymondWorktreeRun> {
  const clone = cloneRepo(bench.repo, join(dir, 'clone'));
  const workflow = join(dir, 'workflow');
  mkdirSync(workflow);
  writeWorktreeWorkflow(workflow, workers);
  const capKb = (spec.diskCapCheckouts ?? DISK_CAP_CHECKOUTS) * bench.repo.checkoutKb;
  const sampler = sampleWorktrees(join(clone, '.raymond', 'worktrees'));
  let capped = false;
  const args = [
    workflow,
    '--max-parallel',
    String(WORKTREE_PARALLEL),
    '--quiet',
    ...(bench.mode ? ['--worktrees', bench.mode] : []),
  ];
  const run = await runCli(args, {
    cwd: clone,
    timeoutMs: timeoutMs(workers.length),
    until: () => (capped ||= sampler.peaks().diskKb > capKb),
  });
  const peaks = await sampler.stop();
  if (capped)
    return {
      wallMs: run.wallMs,
      peaks,
      stoppedAtKb: capKb,
      check: 'not checked: the run was stopped',
    };
  if (run.code !== 0 || run.timedOut) {
    throw new Error(
      `raymond ${run.timedOut ? `timed out after ${(timeoutMs(workers.length) / 1000).toFixed(0)} s` : `exited with ${run.code ?? run.signal}`}: ${tailOf(run.stderr)}`,
    );
  }
  return {
    wallMs: run.wallMs,
    peaks,
    check: checkCommits(clone, 'raymond/', bench, workers.length),
  };
}

/**
 * One figure: the plain loop (if the figure has one), then Raymond, each in
 * a fresh `git clone --local` of the generated repository, so both start
 * from the same state (no branch, worktree or sparse config left by the
 * other) and hardlinked objects keep the clones cheap. Clones are removed
 * after each run, outside the timings.
 */
export async function benchWorktreeFigure(
  bench: WorktreeBench,
  spec: WorktreeFigureSpec,
): Promise<WorktreeOutcome> {
  const workers = worktreeWorkers(spec.workers, bench.repo.packages, spec.sparse);
  const plainDir = join(bench.root, `${spec.id}-plain`);
  const raymondDir = join(bench.root, `${spec.id}-raymond`);
  try {
    const plain = spec.baseline
      ? await runPlain(bench, plainDir, spec.baseline.mode, workers)
      : undefined;
    rmSync(plainDir, { recursive: true, force: true });
    const raymond = await runRaymond(bench, raymondDir, spec, workers);
    return { spec, figures: plain ? { raymond, plain } : { raymond } };
  } catch (err) {
    return { spec, error: err instanceof Error ? err.message : String(err) };
  } finally {
    rmSync(plainDir, { recursive: true, force: true });
    rmSync(raymondDir, { recursive: true, force: true });
  }
}
