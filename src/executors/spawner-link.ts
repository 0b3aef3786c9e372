import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import {
  createLineSplitter,
  encodeMessage,
  tickBatchedWriter,
  type ReadyReply,
  type SpawnerReply,
  type SpawnerRequest,
} from './spawner-protocol.js';
import { spawnerReply } from './spawner-schemas.js';

// Under tsx (tests, development) the spawner is the .ts source and needs tsx's loader; once built, the compiled .js.
const FROM_SOURCE = import.meta.url.endsWith('.ts');
// Written from the parent folder so that it also holds in the bundled CLI (dist/src/cli/), see scripts/bundle.mjs.
const MAIN_FILE = fileURLToPath(
  new URL(
    FROM_SOURCE ? '../executors/spawner.main.ts' : '../executors/spawner.main.js',
    import.meta.url,
  ),
);
const LOADER_FLAGS = FROM_SOURCE ? ['--import', import.meta.resolve('tsx')] : [];

/** A spawner needs little heap: it holds only the output of the steps it runs. */
export const DEFAULT_SPAWNER_FLAGS: readonly string[] = [
  '--max-old-space-size=32',
  '--max-semi-space-size=1',
];

/** A reply about one step: everything but `ready`. */
export type StepReply = Exclude<SpawnerReply, ReadyReply>;

/** How a spawner process ended, for the pool to decide between a rerun and giving up. */
export interface SpawnerExit {
  /** It had said `ready`: a crash while working rather than a failure to start. */
  wasReady: boolean;
  exitCode: number | null;
  signal: string | null;
}

/** One spawner process as the orchestrator sees it. */
export interface SpawnerLink {
  readonly pid: number | undefined;
  send(message: SpawnerRequest): void;
  /** Whether the spawner may keep the orchestrator alive: only while it runs something. */
  setBusy(busy: boolean): void;
  /** Ends its stdin (it then kills what it still runs and exits) and waits until it is gone. */
  close(): Promise<void>;
}

interface Refable {
  ref?: () => void;
  unref?: () => void;
}

/**
 * Starts a spawner process. `ready` goes to `onReady`, every other reply to `onReply`;
 * `onExit` is called once, after the last reply was read.
 */
export function startSpawner(options: {
  flags: readonly string[];
  onReady: () => void;
  onReply: (reply: StepReply) => void;
  onExit: (exit: SpawnerExit) => void;
}): SpawnerLink {
  const child = execa(process.execPath, [...LOADER_FLAGS, ...options.flags, MAIN_FILE], {
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'inherit',
    // Also SIGTERM it when the orchestrator exits; stdin EOF covers a SIGKILLed orchestrator.
    cleanup: true,
    buffer: false,
    reject: false,
  });
  let wasReady = false;
  // A dead spawner's stdin fails with EPIPE; its exit is what the pool acts on.
  child.stdin.on('error', () => {});
  child.stdout.setEncoding('utf8');
  child.stdout.on(
    'data',
    createLineSplitter((line) => {
      let reply: unknown;
      try {
        reply = JSON.parse(line);
      } catch {
        process.emitWarning(
          `raymond: ignoring a spawner reply that is not JSON: ${line.slice(0, 200)}`,
        );
        return;
      }
      if (!spawnerReply.check(reply)) {
        process.emitWarning(
          `raymond: ignoring a spawner reply that is not one: ${spawnerReply.problem(reply, 'the reply')}`,
        );
        return;
      }
      if (reply.type !== 'ready') return options.onReply(reply);
      wasReady = true;
      options.onReady();
    }),
  );
  const exited = child.then((result) =>
    options.onExit({ wasReady, exitCode: result.exitCode ?? null, signal: result.signal ?? null }),
  );

  const write = tickBatchedWriter(child.stdin);
  const handles = [child, child.stdin, child.stdout] as Refable[];
  let closing = false;
  return {
    pid: child.pid,
    send(message) {
      write(encodeMessage(message));
    },
    setBusy(busy) {
      // Once closing, a step that ends (an aborted one, say) must not unreference it again.
      if (closing) return;
      for (const handle of handles) (busy ? handle.ref : handle.unref)?.call(handle);
    },
    async close() {
      // Held while waiting, or an idle, unreferenced spawner would let the process end before its exit is seen.
      closing = true;
      for (const handle of handles) handle.ref?.call(handle);
      child.stdin.end();
      await exited;
    },
  };
}
