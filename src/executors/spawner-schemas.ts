import { Type as T } from '@sinclair/typebox';
import { checked } from '../schema-problem.js';

/**
 * The spawner protocol's messages as schemas; spawner-protocol.ts takes its
 * types from here (type-only imports, gone at run time). The orchestrator
 * checks each reply with `spawnerReply`. The spawner checks each request
 * with spawner-request-check.generated.ts, code generated from `SPAWNER_REQUEST` and
 * checked fresh by its test: a spawner loads no schema library, to stay
 * small and start fast.
 */

/** Starts a program; answered by `started` (if it could be started) and then `exit`. */
export const RUN_MESSAGE = T.Object({
  type: T.Literal('run'),
  /** Chosen by the orchestrator, unique per pool. */
  id: T.Number(),
  file: T.String(),
  args: T.Array(T.String()),
  cwd: T.String(),
  /** Changes to the spawner's environment (the orchestrator's, as it was at the spawner's start); null unsets. */
  env: T.Record(T.String(), T.Union([T.String(), T.Null()])),
  /** Stop the group when it prints nothing for this long. */
  inactivityMs: T.Number(),
  /** Forward output as `chunk` replies while it arrives. */
  stream: T.Boolean(),
  /** Keep only the last this many bytes of stdout; absent keeps everything. */
  maxOutputBytes: T.Optional(T.Number()),
  /** Keep the last this many bytes of stderr (default 4 KB); debug logs want more. */
  stderrBytes: T.Optional(T.Number()),
});

/** Stops a running program's group: `signal` now, SIGKILL after a grace period. */
export const KILL_MESSAGE = T.Object({
  type: T.Literal('kill'),
  id: T.Number(),
  signal: T.String(),
});

/** What the orchestrator sends a spawner. */
export const SPAWNER_REQUEST = T.Union([RUN_MESSAGE, KILL_MESSAGE], {
  must: 'a request (run or kill)',
});

/** Sent once when the spawner is up; a spawner that dies before this failed to start. */
export const READY_REPLY = T.Object({ type: T.Literal('ready'), pid: T.Number() });

/** The program runs; `pid` is also its process group id. */
export const STARTED_REPLY = T.Object({
  type: T.Literal('started'),
  id: T.Number(),
  pid: T.Number(),
});

/** Output forwarded while it arrives (`stream: true`). */
export const CHUNK_REPLY = T.Object({
  type: T.Literal('chunk'),
  id: T.Number(),
  stream: T.Union([T.Literal('stdout'), T.Literal('stderr')]),
  text: T.String(),
});

/**
 * A piece of the kept stdout, sent before `exit` when there is more than
 * fits one message: a spawner's heap is small, and one JSON line of 16 MiB
 * (six times that for control characters) would not fit it.
 */
export const OUTPUT_REPLY = T.Object({
  type: T.Literal('output'),
  id: T.Number(),
  text: T.String(),
});

/** The program ended (or never started). */
export const EXIT_REPLY = T.Object({
  type: T.Literal('exit'),
  id: T.Number(),
  exitCode: T.Union([T.Number(), T.Null()]),
  signal: T.Union([T.String(), T.Null()]),
  /** The whole stdout, or its tail when `maxOutputBytes` was set; after `output` pieces, the rest of it. */
  stdout: T.String(),
  stderrTail: T.String(),
  timedOut: T.Boolean(),
  /** Set when the program could not be started at all. */
  spawnError: T.Optional(T.String()),
  /** Bytes of stdout left out of `stdout` because of `maxOutputBytes`. */
  droppedBytes: T.Number(),
  /** Processes outside the program's group that still held its output pipes when it exited. */
  leftRunning: T.Array(T.Number()),
  /** CPU time of the program and its children, as last sampled (ms). */
  cpuMs: T.Number(),
});

/** What a spawner sends back. */
export const SPAWNER_REPLY = T.Union(
  [READY_REPLY, STARTED_REPLY, CHUNK_REPLY, OUTPUT_REPLY, EXIT_REPLY],
  { must: 'a reply (ready, started, chunk, output or exit)' },
);

/** The orchestrator's check of a spawner's reply. */
export const spawnerReply = checked(SPAWNER_REPLY);
