import { spawn } from 'node:child_process';
import { sampleMemory, type MemoryPeaks } from './memory-sampler.js';

/** One measured process run: its wall time from spawn to exit, as a user would see it. */
export interface ProcessRun {
  wallMs: number;
  memory: MemoryPeaks;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the run was killed for taking longer than `timeoutMs`. */
  timedOut: boolean;
  stdout: string;
  /** The last few kilobytes of stderr, for a failure's report. */
  stderr: string;
}

/** How to run and when to stop a measured process. */
export interface MeasureOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Keep stdout (a helper's report); otherwise it is discarded unread. */
  captureStdout?: boolean;
  /** Kill the run (SIGTERM, then SIGKILL) after this long, so one stuck run cannot stall the bench. */
  timeoutMs?: number;
  /** Checked after each memory sample; true stops the run with SIGTERM. */
  until?: (rssMb: number, elapsedMs: number) => boolean;
}

const TAIL = 4000;
const KILL_GRACE_MS = 5000;

/**
 * Runs `file` and samples its memory (and its spawners') until it exits.
 * Both the orchestrator and the plain-loop helper run through here, so the
 * sampling costs them the same.
 */
export function measureProcess(
  file: string,
  args: string[],
  opts: MeasureOptions,
): Promise<ProcessRun> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(file, args, {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      stdio: ['ignore', opts.captureStdout ? 'pipe' : 'ignore', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let spawnError = '';
    child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-TAIL)));
    const stopWith = (why: () => void) => {
      why();
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS).unref();
    };
    const deadline =
      opts.timeoutMs === undefined
        ? undefined
        : setTimeout(() => stopWith(() => (timedOut = true)), opts.timeoutMs);
    let stopping = false;
    const sampler =
      child.pid === undefined
        ? undefined
        : sampleMemory(child.pid, () => {
            const p = sampler?.peaks();
            if (!stopping && p && opts.until?.(p.nowMb, performance.now() - t0))
              stopWith(() => (stopping = true));
          });
    child.on('error', (err) => (spawnError = err.message));
    child.on('close', (code, signal) => {
      const wallMs = performance.now() - t0;
      clearTimeout(deadline);
      const memory = sampler?.stop() ?? {
        withSpawnersMb: 0,
        withSpawnersRssMb: 0,
        aloneMb: 0,
        spawners: 0,
      };
      resolve({
        wallMs,
        memory,
        code,
        signal,
        timedOut,
        stdout,
        stderr: spawnError ? `${stderr}\n${spawnError}` : stderr,
      });
    });
  });
}
