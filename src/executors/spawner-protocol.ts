import type { Static } from '@sinclair/typebox';
import type {
  CHUNK_REPLY,
  EXIT_REPLY,
  KILL_MESSAGE,
  OUTPUT_REPLY,
  READY_REPLY,
  RUN_MESSAGE,
  STARTED_REPLY,
} from './spawner-schemas.js';

/**
 * Wire format between the orchestrator and its spawner processes: one JSON
 * object per line, in both directions. The messages' types come from their
 * schemas (spawner-schemas.ts). This file imports types only, on purpose:
 * the spawner loads it, and the spawner must stay small.
 */

/** Starts a program; answered by `started` (if it could be started) and then `exit`. */
export type RunMessage = Static<typeof RUN_MESSAGE>;
/** Stops a running program's group: `signal` now, SIGKILL after a grace period. */
export type KillMessage = Static<typeof KILL_MESSAGE>;
export type SpawnerRequest = RunMessage | KillMessage;

/** Sent once when the spawner is up; a spawner that dies before this failed to start. */
export type ReadyReply = Static<typeof READY_REPLY>;
/** The program runs; `pid` is also its process group id. */
export type StartedReply = Static<typeof STARTED_REPLY>;
export type ChunkReply = Static<typeof CHUNK_REPLY>;
/** A piece of the kept stdout, sent before `exit` when there is more than fits one message. */
export type OutputReply = Static<typeof OUTPUT_REPLY>;
export type ExitReply = Static<typeof EXIT_REPLY>;
export type SpawnerReply = ReadyReply | StartedReply | ChunkReply | OutputReply | ExitReply;

/** One message as one line. JSON escapes newlines inside strings, so a line is a message. */
export function encodeMessage(message: SpawnerRequest | SpawnerReply): string {
  return `${JSON.stringify(message)}\n`;
}

/**
 * A writer that sends everything written in one tick in one write: at
 * fan-out, many messages a tick would otherwise each be a system call.
 */
export function tickBatchedWriter(stream: {
  cork(): void;
  uncork(): void;
  write(data: string | Uint8Array): unknown;
}): (data: string | Uint8Array) => void {
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
