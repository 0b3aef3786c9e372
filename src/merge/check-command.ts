import { runProcess } from '../executors/run-process.js';

/** How much of a check's output is kept for the report and for the agent told of it. */
const OUTPUT_TAIL = 8 * 1024;

/** A check's verdict on a merged tree. */
export interface CheckResult {
  passed: boolean;
  /** `exited with 1`, `was killed by SIGKILL`, `printed nothing for 600 s`... (empty when it passed). */
  how: string;
  /** The last 8 KiB of what it printed, stdout and stderr as they came. */
  output: string;
}

/**
 * Runs `--check CMD` with `sh -c` in the merge folder, in its own process
 * group (a timeout kills the whole group), stdin closed, its output
 * captured. It fails when it exits non-zero, is killed, or prints nothing
 * for `inactivityMs`.
 */
export async function runCheck(
  command: string,
  cwd: string,
  inactivityMs: number,
  env: Record<string, string>,
  signal: AbortSignal,
): Promise<CheckResult> {
  let output = '';
  const keep = (text: string) => {
    output = (output + text).slice(-OUTPUT_TAIL);
  };
  const r = await runProcess({
    file: 'sh',
    args: ['-c', command],
    cwd,
    env,
    signal,
    inactivityMs,
    onStdout: keep,
    onStderr: keep,
  });
  if (r.spawnError) return { passed: false, how: `could not start: ${r.spawnError}`, output };
  if (r.timedOut)
    return {
      passed: false,
      how: `printed nothing for ${Math.round(inactivityMs / 1000)} s and was killed`,
      output,
    };
  if (r.aborted) return { passed: false, how: 'was stopped', output };
  if (r.exitCode === 0) return { passed: true, how: '', output };
  return {
    passed: false,
    how:
      r.exitCode === null ? `was killed by ${r.signal ?? 'a signal'}` : `exited with ${r.exitCode}`,
    output,
  };
}
