/**
 * Wire format between the orchestrator and its spawner processes: one JSON
 * object per line, in both directions. This file has no imports on purpose:
 * the spawner loads it, and the spawner must stay small.
 */

/** Starts a program; answered by `started` (if it could be started) and then `exit`. */
export interface RunMessage {
  type: 'run';
  /** Chosen by the orchestrator, unique per pool. */
  id: number;
  file: string;
  args: string[];
  cwd: string;
  /** Changes to the spawner's environment (the orchestrator's, as it was at the spawner's start); null unsets. */
  env: Record<string, string | null>;
  /** Stop the group when it prints nothing for this long. */
  inactivityMs: number;
  /** Forward output as `chunk` replies while it arrives. */
  stream: boolean;
  /** Keep only the last this many bytes of stdout; absent keeps everything. */
  maxOutputBytes?: number;
  /** Keep the last this many bytes of stderr (default 4 KB); debug logs want more. */
  stderrBytes?: number;
}

/** Stops a running program's group: `signal` now, SIGKILL after a grace period. */
export interface KillMessage {
  type: 'kill';
  id: number;
  signal: string;
}

export type SpawnerRequest = RunMessage | KillMessage;

/** Sent once when the spawner is up; a spawner that dies before this failed to start. */
export interface ReadyReply {
  type: 'ready';
  pid: number;
}

/** The program runs; `pid` is also its process group id. */
export interface StartedReply {
  type: 'started';
  id: number;
  pid: number;
}

export interface ChunkReply {
  type: 'chunk';
  id: number;
  stream: 'stdout' | 'stderr';
  text: string;
}

/**
 * A piece of the kept stdout, sent before `exit` when there is more than
 * fits one message: a spawner's heap is small, and one JSON line of 16 MiB
 * (six times that for control characters) would not fit it.
 */
export interface OutputReply {
  type: 'output';
  id: number;
  text: string;
}

export interface ExitReply {
  type: 'exit';
  id: number;
  exitCode: number | null;
  signal: string | null;
  /** The whole stdout, or its tail when `maxOutputBytes` was set; after `output` pieces, the rest of it. */
  stdout: string;
  stderrTail: string;
  timedOut: boolean;
  /** Set when the program could not be started at all. */
  spawnError?: string;
  /** Bytes of stdout left out of `stdout` because of `maxOutputBytes`. */
  droppedBytes: number;
  /** Processes outside the program's group that still held its output pipes when it exited. */
  leftRunning: number[];
}

export type SpawnerReply = ReadyReply | StartedReply | ChunkReply | OutputReply | ExitReply;

/** One message as one line. JSON escapes newlines inside strings, so a line is a message. */
export function encodeMessage(message: SpawnerRequest | SpawnerReply): string {
  return `${JSON.stringify(message)}\n`;
}

/**
 * A writer that sends everything written in one tick in one write: at
 * fan-out, many messages a tick would otherwise each be a system call.
 */
export function tickBatchedWriter(stream: { cork(): void; uncork(): void; write(data: string | Uint8Array): unknown }): (data: string | Uint8Array) => void {
  let corked = false;
  return (data) => {
    if (!corked) {
      corked = true;
      stream.cork();
      process.nextTick(() => {
        corked = false;
        stream.uncork();
      });
    }
    stream.write(data);
  };
}

/**
 * Splits a stream of text into lines and hands each complete line to `onLine`.
 * Each chunk is scanned once: a long line arriving in many chunks is joined
 * once it is complete, never rescanned, so the cost stays linear in the bytes.
 */
export function createLineSplitter(onLine: (line: string) => void): (chunk: string) => void {
  let parts: string[] = [];
  return (chunk) => {
    let start = 0;
    let end = chunk.indexOf('\n');
    while (end !== -1) {
      parts.push(chunk.slice(start, end));
      const line = parts.length === 1 ? parts[0]! : parts.join('');
      parts = [];
      if (line.length > 0) onLine(line);
      start = end + 1;
      end = chunk.indexOf('\n', start);
    }
    if (start < chunk.length) parts.push(chunk.slice(start));
  };
}
