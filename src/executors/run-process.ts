import { StringDecoder } from 'node:string_decoder';
import { execa } from 'execa';
import { timerDelay } from '../timer-delay.js';
import { CpuSampler } from './process-cpu.js';
import { killGroup, registerGroup, unregisterGroup } from './process-registry.js';

export interface ProcessRequest {
  file: string;
  args: string[];
  cwd: string;
  /** Added to the orchestrator's environment; `undefined` values remove a variable. */
  env: Record<string, string | undefined>;
  signal: AbortSignal;
  /** Kill the process when it prints nothing for this long. */
  inactivityMs: number;
  /** Written to the program's stdin, which is then closed; without it stdin is closed from the start. */
  input?: string;
  /** Called with each decoded chunk of stdout, as it arrives; stdout is then not kept. */
  onStdout?: (text: string) => void;
  onStderr?: (text: string) => void;
}

export interface ProcessResult {
  exitCode: number | null;
  signal: string | null;
  /** Everything the program printed, unless `onStdout` took it as it came. */
  stdout: string;
  /** The last few kilobytes of stderr. */
  stderrTail: string;
  timedOut: boolean;
  aborted: boolean;
  /** Set when the process could not be started at all. */
  spawnError?: string;
  /** CPU time of the process and its children, as last sampled (ms). */
  cpuMs: number;
}

const STDERR_TAIL = 4096;
const KILL_GRACE_MS = 2000;

/**
 * Runs a program in its own process group with stdin closed. Output resets
 * an inactivity timer; on timeout or abort the whole group gets SIGTERM, then
 * SIGKILL if it lingers.
 */
export async function runProcess(req: ProcessRequest): Promise<ProcessResult> {
  const subprocess = execa(req.file, req.args, {
    cwd: req.cwd,
    env: req.env,
    extendEnv: true,
    ...(req.input === undefined ? { stdin: 'ignore' as const } : { input: req.input }),
    detached: true,
    buffer: false,
    reject: false,
    cleanup: false,
  });
  const pid = subprocess.pid;
  if (pid !== undefined) registerGroup(pid);
  const cpu = new CpuSampler(pid);
  let stdout = '';
  let stderr = '';
  let timedOut = false;
  let aborted = false;
  const outDecoder = new StringDecoder('utf8');
  const errDecoder = new StringDecoder('utf8');
  let killTimer: NodeJS.Timeout | undefined;
  const stop = () => {
    if (pid === undefined || killTimer) return;
    killGroup(pid, 'SIGTERM');
    killTimer = setTimeout(() => killGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
  };
  let idle = setTimeout(onIdle, timerDelay(req.inactivityMs));
  function onIdle() {
    timedOut = true;
    stop();
  }
  const touch = () => {
    clearTimeout(idle);
    idle = setTimeout(onIdle, timerDelay(req.inactivityMs));
  };
  const onAbort = () => {
    aborted = true;
    stop();
  };
  if (req.signal.aborted) onAbort();
  else req.signal.addEventListener('abort', onAbort, { once: true });

  // Children of the program that outlive it belong to its step: its exit ends its group. A child
  // left in the background (`sleep 40 & exit 0`) would otherwise hold the output pipes open, and
  // execa waits for them to close: the result comes now, not at the inactivity limit. What the
  // program printed before is still in the pipes and is read to the end.
  subprocess.on('exit', () => {
    if (pid !== undefined) killGroup(pid, 'SIGKILL');
  });
  // Its exit closes its output: the last sample, while the exited process can still be read.
  subprocess.stdout?.on('end', () => cpu.sample(true));
  subprocess.stdout?.on('data', (chunk: Buffer) => {
    touch();
    cpu.sample();
    const text = outDecoder.write(chunk);
    // Whoever streams the output keeps what it needs: Claude Code may print more than a string can hold.
    if (req.onStdout) req.onStdout(text);
    else stdout += text;
  });
  subprocess.stderr?.on('data', (chunk: Buffer) => {
    touch();
    const text = errDecoder.write(chunk);
    stderr = (stderr + text).slice(-STDERR_TAIL);
    req.onStderr?.(text);
  });
  const result = await subprocess;
  clearTimeout(idle);
  if (killTimer) clearTimeout(killTimer);
  req.signal.removeEventListener('abort', onAbort);
  // Its group was ended when it exited (above).
  if (pid !== undefined) unregisterGroup(pid);
  const rest = outDecoder.end();
  if (req.onStdout) {
    if (rest) req.onStdout(rest);
  } else stdout += rest;
  stderr = (stderr + errDecoder.end()).slice(-STDERR_TAIL);
  const out: ProcessResult = {
    exitCode: result.exitCode ?? null,
    signal: result.signal ?? null,
    stdout,
    stderrTail: stderr,
    timedOut,
    aborted,
    cpuMs: cpu.ms,
  };
  if (
    result.failed &&
    result.exitCode === undefined &&
    result.signal === undefined &&
    !timedOut &&
    !aborted
  ) {
    // Not the short message: it quotes the command line, and with it the whole prompt.
    out.spawnError = result.originalMessage || result.shortMessage;
  }
  return out;
}
