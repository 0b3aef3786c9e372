import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));

/** Peak and current resident memory of a process, in MB, from /proc. */
function memory(pid: number): { peak: number; now: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return { peak: kb('VmHWM') / 1024, now: kb('VmRSS') / 1024 };
  } catch {
    return undefined;
  }
}

export interface CliRun {
  wallMs: number;
  peakRssMb: number;
  code: number | null;
  stderr: string;
}

/**
 * Runs the built CLI and samples its memory until it exits. `until` may stop
 * it early (SIGTERM) once it returns true for the current RSS in MB.
 */
export function runCli(args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; until?: (rssMb: number, elapsedMs: number) => boolean }): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    // Run the bin itself, so the V8 flags on its #! line apply as for users.
    const child = spawn(CLI, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let peak = 0;
    child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
    const timer = setInterval(() => {
      const m = memory(child.pid!);
      if (!m) return;
      peak = Math.max(peak, m.peak);
      if (opts.until?.(m.now, performance.now() - t0)) child.kill('SIGTERM');
    }, 25);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(timer);
      resolve({ wallMs: performance.now() - t0, peakRssMb: peak, code, stderr });
    });
  });
}
