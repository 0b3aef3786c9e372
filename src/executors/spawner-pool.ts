import { availableParallelism } from 'node:os';
import { RaymondError } from '../errors.js';
import type { ProcessRequest, ProcessResult } from './run-process.js';
import { killGroup, registerGroup, unregisterGroup } from './process-registry.js';
import type { ExitReply, RunMessage } from './spawner-protocol.js';
import {
  DEFAULT_SPAWNER_FLAGS,
  startSpawner,
  type SpawnerExit,
  type SpawnerLink,
  type StepReply,
} from './spawner-link.js';

/** A step for the pool: runProcess's request, plus a cap on the stdout kept. */
export type SpawnRequest = ProcessRequest & {
  /** Keep only the last this many bytes of stdout. */
  maxOutputBytes?: number;
  /** Keep the last this many bytes of stderr (default 4 KB). */
  stderrBytes?: number;
};

/** runProcess's result, plus what the spawner can tell beyond it. */
export type SpawnResult = ProcessResult & {
  /** Bytes of stdout left out because of `maxOutputBytes`. */
  droppedBytes: number;
  /** Processes that left the step's group and still held its output when it ended; they run on. */
  leftRunning: number[];
};

export interface SpawnerPoolStats {
  spawners: Array<{ pid: number | undefined; inFlight: number }>;
  inFlight: number;
  /** Spawners that died other than through close(). */
  deaths: number;
  /** Steps sent again because their spawner died. */
  reruns: number;
}

export interface SpawnerPool {
  run(req: SpawnRequest): Promise<SpawnResult>;
  /** Ends every spawner; steps still running are killed and resolve as aborted. */
  close(): Promise<void>;
  stats(): SpawnerPoolStats;
}

/** Spawners dying before they are ready this many times in a row means they cannot start at all. */
const MAX_FAILED_STARTS = 3;
/** A step whose spawner died this often is not sent again (it may be what kills them). */
const MAX_ATTEMPTS = 3;

interface Slot {
  link: SpawnerLink;
  pending: Set<Pending>;
}

interface Pending {
  req: SpawnRequest;
  wire: RunMessage;
  slot: Slot | undefined;
  /** Process group of the current attempt, once the spawner reported it. */
  pid: number | undefined;
  aborted: boolean;
  attempts: number;
  /** `output` pieces of the current attempt's stdout, joined when it exits. */
  output: string[];
  onAbort: () => void;
  resolve: (result: SpawnResult) => void;
  reject: (err: Error) => void;
}

function abortedResult(): SpawnResult {
  return {
    exitCode: null,
    signal: null,
    stdout: '',
    stderrTail: '',
    timedOut: false,
    aborted: true,
    droppedBytes: 0,
    leftRunning: [],
    cpuMs: 0,
  };
}

function describeExit(exit: SpawnerExit): string {
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.exitCode}`;
}

/**
 * Runs script steps through a few small, long-lived spawner processes, so
 * that the big orchestrator never forks itself per step. Spawners start on
 * first use; each step goes to the one with the fewest steps in flight. A
 * step whose spawner dies is run again on a fresh one (at least once, as
 * after a crash of the orchestrator).
 */
export function createSpawnerPool(
  options: { size?: number; nodeFlags?: readonly string[] } = {},
): SpawnerPool {
  const slots: Array<Slot | undefined> = new Array<Slot | undefined>(
    Math.max(1, options.size ?? availableParallelism()),
  ).fill(undefined);
  // Replies find their step by id in constant time, however many steps are in flight.
  const byId = new Map<number, Pending>();
  let nextId = 1;
  let failedStarts = 0;
  let deaths = 0;
  let reruns = 0;
  let closed = false;

  function open(index: number): Slot {
    const slot: Slot = {
      pending: new Set(),
      link: startSpawner({
        flags: options.nodeFlags ?? DEFAULT_SPAWNER_FLAGS,
        onReady: () => {
          failedStarts = 0;
        },
        onReply: (reply) => onReply(slot, reply),
        onExit: (exit) => onSpawnerExit(index, slot, exit),
      }),
    };
    slots[index] = slot;
    return slot;
  }

  /** The spawner with the fewest steps in flight; a running one over one yet to start. */
  function pick(): Slot {
    let best = 0;
    let bestScore = Infinity;
    slots.forEach((slot, index) => {
      const score = slot ? slot.pending.size * 2 : 1;
      if (score < bestScore) [best, bestScore] = [index, score];
    });
    return slots[best] ?? open(best);
  }

  function dispatch(p: Pending): void {
    const slot = pick();
    p.slot = slot;
    p.pid = undefined;
    p.output = [];
    p.attempts++;
    slot.pending.add(p);
    slot.link.setBusy(true);
    slot.link.send(p.wire);
  }

  function detach(p: Pending): void {
    byId.delete(p.wire.id);
    p.req.signal.removeEventListener('abort', p.onAbort);
    if (p.pid !== undefined) unregisterGroup(p.pid);
    const slot = p.slot;
    if (!slot) return;
    slot.pending.delete(p);
    if (slot.pending.size === 0) slot.link.setBusy(false);
  }

  function finish(p: Pending, reply: ExitReply): void {
    detach(p);
    const result: SpawnResult = {
      exitCode: reply.exitCode,
      signal: reply.signal,
      stdout: p.output.length > 0 ? p.output.join('') + reply.stdout : reply.stdout,
      stderrTail: reply.stderrTail,
      timedOut: reply.timedOut,
      aborted: p.aborted,
      droppedBytes: reply.droppedBytes,
      leftRunning: reply.leftRunning,
      cpuMs: reply.cpuMs,
    };
    if (reply.spawnError !== undefined) result.spawnError = reply.spawnError;
    p.resolve(result);
  }

  function onReply(slot: Slot, reply: StepReply): void {
    const p = byId.get(reply.id);
    // Replies of a spawner that was already given up on are stale.
    if (!p || p.slot !== slot) return;
    if (reply.type === 'started') {
      p.pid = reply.pid;
      // Its spawner ends it if Raymond dies.
      registerGroup(reply.pid, { watched: false });
    } else if (reply.type === 'chunk') {
      (reply.stream === 'stdout' ? p.req.onStdout : p.req.onStderr)?.(reply.text);
    } else if (reply.type === 'output') {
      p.output.push(reply.text);
    } else if (reply.type === 'exit') {
      finish(p, reply);
    }
  }

  function onSpawnerExit(index: number, slot: Slot, exit: SpawnerExit): void {
    if (slots[index] === slot) slots[index] = undefined;
    if (!closed) deaths++;
    if (!exit.wasReady) failedStarts++;
    for (const p of [...slot.pending]) {
      // Whatever the dead spawner started must not run on next to its rerun.
      if (p.pid !== undefined) killGroup(p.pid, 'SIGKILL');
      const rerun =
        !closed && !p.aborted && failedStarts < MAX_FAILED_STARTS && p.attempts < MAX_ATTEMPTS;
      detach(p);
      if (rerun) {
        reruns++;
        byId.set(p.wire.id, p);
        p.req.signal.addEventListener('abort', p.onAbort, { once: true });
        dispatch(p);
      } else if (closed || p.aborted) {
        p.resolve(abortedResult());
      } else if (failedStarts >= MAX_FAILED_STARTS) {
        p.reject(
          new RaymondError(
            'ERR_SCRIPT_START',
            `could not start a spawner process: ${failedStarts} in a row ended before they were ready (last: ${describeExit(exit)})`,
          ),
        );
      } else {
        p.reject(
          new RaymondError(
            'ERR_SCRIPT_FAILED',
            `${p.req.file}: its spawner process died ${p.attempts} times while running it (last: ${describeExit(exit)})`,
          ),
        );
      }
    }
  }

  return {
    run(req) {
      if (closed)
        return Promise.reject(new RaymondError('ERR_INTERNAL', 'the spawner pool is closed'));
      if (req.signal.aborted) return Promise.resolve(abortedResult());
      // No prototype: a variable named __proto__ (a fork attribute may be) is an ordinary key.
      const env = Object.create(null) as Record<string, string | null>;
      for (const [key, value] of Object.entries(req.env)) env[key] = value ?? null;
      const wire: RunMessage = {
        type: 'run',
        id: nextId++,
        file: req.file,
        args: req.args,
        cwd: req.cwd,
        env,
        inactivityMs: req.inactivityMs,
        stream: Boolean(req.onStdout || req.onStderr),
      };
      if (req.maxOutputBytes !== undefined) wire.maxOutputBytes = req.maxOutputBytes;
      if (req.stderrBytes !== undefined) wire.stderrBytes = req.stderrBytes;
      return new Promise<SpawnResult>((resolve, reject) => {
        const p: Pending = {
          req,
          wire,
          slot: undefined,
          pid: undefined,
          aborted: false,
          attempts: 0,
          output: [],
          resolve,
          reject,
          onAbort: () => {
            p.aborted = true;
            p.slot?.link.send({ type: 'kill', id: wire.id, signal: 'SIGTERM' });
          },
        };
        byId.set(wire.id, p);
        req.signal.addEventListener('abort', p.onAbort, { once: true });
        dispatch(p);
      });
    },
    async close() {
      closed = true;
      await Promise.all(slots.flatMap((slot) => (slot ? [slot.link.close()] : [])));
    },
    stats() {
      const spawners = slots.flatMap((slot) =>
        slot ? [{ pid: slot.link.pid, inFlight: slot.pending.size }] : [],
      );
      return { spawners, inFlight: byId.size, deaths, reruns };
    },
  };
}
