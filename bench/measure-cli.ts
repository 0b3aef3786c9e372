import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { measureProcess, type MeasureOptions, type ProcessRun } from './measure-process.js';

/** The built CLI's entry point, whose `#!` line carries Raymond's Node flags. */
export const CLI = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));

/**
 * The Node flags on the bin's `#!` line (`--max-semi-space-size=2 ...`), so
 * that the plain loop's process runs with the same GC settings as Raymond.
 */
export function cliNodeFlags(): string[] {
  const shebang = readFileSync(CLI, 'utf8').split('\n', 1)[0] ?? '';
  const words = shebang.split(/\s+/);
  return words.slice(words.indexOf('node') + 1).filter((w) => w.startsWith('--'));
}

export interface CliRun extends ProcessRun {
  /** The orchestrator's own peak RSS in MB (VmHWM), as `memory.aloneMb`. */
  peakRssMb: number;
}

/**
 * Runs the built CLI, sampling the orchestrator and its spawner processes
 * until it exits. `until` may stop it early (SIGTERM).
 */
export async function runCli(
  args: string[],
  opts: Omit<MeasureOptions, 'captureStdout'>,
): Promise<CliRun> {
  // Run the bin itself, so the V8 flags on its #! line apply as for users.
  const run = await measureProcess(CLI, args, opts);
  return { ...run, peakRssMb: run.memory.aloneMb };
}
