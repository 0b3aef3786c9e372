/**
 * Entry of a spawner process: a small, long-lived Node process that starts
 * script steps for the orchestrator. Forking from a process this small is
 * cheap, where forking from the big orchestrator copies its page tables on
 * every step. Requests arrive as JSON lines on stdin, replies leave as JSON
 * lines on stdout (see protocol.ts). Only `node:*` modules and three small
 * dependency-free files are imported (the request check is generated from
 * its schema), to keep the process small and its start fast.
 */
import { CpuSampler } from './process-cpu.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readlinkSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { timerDelay } from '../timer-delay.js';
import {
  createLineSplitter,
  encodeMessage,
  tickBatchedWriter,
  type RunMessage,
  type SpawnerReply,
} from './spawner-protocol.js';
import { isSpawnerRequest } from './spawner-request-check.generated.js';

const STDERR_TAIL = 4096;
/** Stdout longer than this leaves in several messages (see sendOutput). */
const OUTPUT_PIECE_BYTES = 1 << 20;
const KILL_GRACE_MS = 2000;
/** How long pipes may stay open after the script exited before they count as held by an escapee. */
const DRAIN_MS = 150;

/** Requests only carry changes to this: the environment as it was when the orchestrator started us. */
const baseEnv = { ...process.env };
/** Running steps by request id: the targets of `kill`, and what shutdown must not leave behind. */
const jobs = new Map<number, { pid: number | undefined; stop: (signal: NodeJS.Signals) => void }>();

const write = tickBatchedWriter(process.stdout);
/** Writes a reply; replies of one tick go out in one write. */
function send(reply: SpawnerReply): void {
  write(encodeMessage(reply));
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** The last `limit` bytes of a stream, and how many bytes came before them. */
class Tail {
  private chunks: Buffer[] = [];
  private size = 0;
  private dropped = 0;
  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.limit) {
      const first = this.chunks[0]!;
      const excess = Math.min(first.length, this.size - this.limit);
      if (excess === first.length) this.chunks.shift();
      else this.chunks[0] = first.subarray(excess);
      this.size -= excess;
      this.dropped += excess;
    }
  }

  /** The bytes kept, starting on a whole character, and how many came before them. */
  finish(): { bytes: Buffer; dropped: number } {
    const bytes = Buffer.concat(this.chunks, this.size);
    let skip = 0;
    // A cut inside a character would decode as garbage: start at the next whole one.
    if (this.dropped > 0)
      while (skip < 3 && skip < bytes.length && (bytes[skip]! & 0xc0) === 0x80) skip++;
    return { bytes: bytes.subarray(skip), dropped: this.dropped + skip };
  }
}

/**
 * Sends all but the last piece of a step's stdout as `output` replies and
 * returns the last piece, for the `exit` reply. Each piece is turned into
 * bytes as it is sent, so the heap holds one piece at a time however much
 * output was kept; the decoder carries characters split between pieces.
 */
function sendOutput(id: number, bytes: Buffer): string {
  const decoder = new StringDecoder('utf8');
  let at = 0;
  for (; bytes.length - at > OUTPUT_PIECE_BYTES; at += OUTPUT_PIECE_BYTES) {
    const text = decoder.write(bytes.subarray(at, at + OUTPUT_PIECE_BYTES));
    write(Buffer.from(encodeMessage({ type: 'output', id, text })));
  }
  return decoder.write(bytes.subarray(at)) + decoder.end();
}

/**
 * What the script's stdout and stderr are, as /proc names them. Node gives a
 * child one end of a socket pair, whose two ends have different inodes, so
 * it must be the child's own end, read while the child is alive.
 */
function outputEnds(pid: number): string[] {
  if (process.platform !== 'linux') return [];
  const ends: string[] = [];
  for (const fd of [1, 2]) {
    try {
      ends.push(readlinkSync(`/proc/${pid}/fd/${fd}`));
    } catch {
      // Exited already, or closed the descriptor itself.
    }
  }
  return ends;
}

/** Processes that still hold one of these ends (best effort: only those we may inspect). */
function holdersOf(ends: string[]): number[] {
  if (ends.length === 0) return [];
  const holders: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${name}/fd`);
    } catch {
      continue; // Gone, or not ours to look at.
    }
    const holds = (fd: string) => {
      try {
        return ends.includes(readlinkSync(`/proc/${name}/fd/${fd}`));
      } catch {
        return false;
      }
    };
    if (fds.some(holds)) holders.push(pid);
  }
  return holders;
}

/** Runs one step: the same rules as runProcess, except that the step ends when the script exits. */
function run(msg: RunMessage): void {
  // No prototype: a variable named __proto__ (a fork attribute may be) is an ordinary key.
  const env: Record<string, string | undefined> = Object.assign(
    Object.create(null) as Record<string, string | undefined>,
    baseEnv,
  );
  for (const [key, value] of Object.entries(msg.env)) {
    if (value === null) delete env[key];
    else env[key] = value;
  }
  const out = new Tail(msg.maxOutputBytes ?? Infinity);
  const err = new Tail(msg.stderrBytes ?? STDERR_TAIL);
  let child: ChildProcess;
  try {
    child = spawn(msg.file, msg.args, {
      cwd: msg.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
  } catch (error) {
    // Invalid arguments throw instead of emitting 'error'.
    send({
      type: 'exit',
      id: msg.id,
      exitCode: null,
      signal: null,
      stdout: '',
      stderrTail: '',
      timedOut: false,
      spawnError: String(error),
      droppedBytes: 0,
      leftRunning: [],
      cpuMs: 0,
    });
    return;
  }
  const pid = child.pid;
  let timedOut = false;
  let exited = false;
  let done = false;
  let exitCode: number | null = null;
  let exitSignal: string | null = null;
  let killTimer: NodeJS.Timeout | undefined;
  let drainTimer: NodeJS.Timeout | undefined;

  const stop = (signal: NodeJS.Signals) => {
    if (pid === undefined || exited || killTimer) return;
    killGroup(pid, signal);
    killTimer = setTimeout(() => killGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
  };
  const idle = setTimeout(() => {
    timedOut = true;
    stop('SIGTERM');
  }, timerDelay(msg.inactivityMs));
  jobs.set(msg.id, { pid, stop });
  if (pid !== undefined) send({ type: 'started', id: msg.id, pid });
  const cpu = new CpuSampler(pid);
  // Its exit closes its output: the last sample, while the exited process can still be read.
  child.stdout?.on('end', () => cpu.sample(true));
  const ends = pid === undefined ? [] : outputEnds(pid);

  const finish = (spawnError?: string, leftRunning: number[] = []) => {
    if (done) return;
    done = true;
    clearTimeout(idle);
    clearTimeout(killTimer);
    clearTimeout(drainTimer);
    jobs.delete(msg.id);
    const stdout = out.finish();
    const stderr = err.finish().bytes.toString('utf8');
    const reply: SpawnerReply = {
      type: 'exit',
      id: msg.id,
      exitCode,
      signal: exitSignal,
      stdout: sendOutput(msg.id, stdout.bytes),
      stderrTail: stderr,
      timedOut,
      droppedBytes: stdout.dropped,
      leftRunning,
      cpuMs: cpu.ms,
    };
    if (spawnError !== undefined) reply.spawnError = spawnError;
    send(reply);
  };
  const listen = (stream: Readable | null, tail: Tail, name: 'stdout' | 'stderr') => {
    const decoder = msg.stream ? new StringDecoder('utf8') : undefined;
    stream?.on('data', (chunk: Buffer) => {
      if (done) return;
      idle.refresh();
      cpu.sample();
      tail.push(chunk);
      if (decoder) send({ type: 'chunk', id: msg.id, stream: name, text: decoder.write(chunk) });
    });
  };
  listen(child.stdout, out, 'stdout');
  listen(child.stderr, err, 'stderr');

  child.on('error', (error) => {
    if (pid === undefined) finish(error.message);
  });
  child.on('exit', (code, signal) => {
    exited = true;
    exitCode = code;
    exitSignal = signal;
    clearTimeout(idle);
    clearTimeout(killTimer);
    // Whatever the script left behind in its group belongs to the step and ends with it.
    if (pid !== undefined) killGroup(pid, 'SIGKILL');
    // A process that left the group (setsid) may hold the pipes open for good: give up on them.
    drainTimer = setTimeout(() => {
      const holders = holdersOf(ends);
      child.stdout?.destroy();
      child.stderr?.destroy();
      finish(undefined, holders);
    }, DRAIN_MS);
  });
  // Both pipes closed after the exit: all output is in.
  child.on('close', () => finish());
}

function handle(line: string): void {
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch {
    process.stderr.write(
      `raymond spawner: ignoring a request that is not JSON: ${line.slice(0, 200)}\n`,
    );
    return;
  }
  if (!isSpawnerRequest(msg)) {
    process.stderr.write(
      `raymond spawner: ignoring a request that is not a run or a kill of the protocol: ${line.slice(0, 200)}\n`,
    );
    return;
  }
  if (msg.type === 'run') run(msg);
  else if (msg.type === 'kill') jobs.get(msg.id)?.stop(msg.signal as NodeJS.Signals);
}

/** No step may outlive the orchestrator: kill every group we started, then leave. */
function shutdown(): never {
  for (const job of jobs.values()) if (job.pid !== undefined) killGroup(job.pid, 'SIGKILL');
  process.exit(0);
}

process.stdin.setEncoding('utf8');
process.stdin.on('data', createLineSplitter(handle));
process.stdin.on('end', shutdown);
process.stdout.on('error', shutdown);
process.on('SIGTERM', shutdown);
process.on('SIGHUP', shutdown);
// Ctrl-C reaches the whole foreground group; stopping steps is the orchestrator's decision.
process.on('SIGINT', () => {});
send({ type: 'ready', pid: process.pid });
