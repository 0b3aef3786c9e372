import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { RaymondError, type Outcome } from '../errors.js';
import type { Interpretation, InterpretTask } from './interpret.js';
import type { LanguageTask, PrepareTask, Prepared } from './language-tasks.js';

/**
 * Parsing and rendering, behind one small interface so the runtime does not
 * care whether the work runs on a worker thread or inline (the benchmark
 * compares both).
 */
export interface LanguageService {
  prepare(task: Omit<PrepareTask, 'op'>, signal?: AbortSignal): Promise<Prepared>;
  interpret(task: Omit<InterpretTask, 'op'>, signal?: AbortSignal): Promise<Interpretation>;
  close(): Promise<void>;
}

function unwrap<T>(outcome: Outcome<unknown>): T {
  if (outcome.ok) return outcome.value as T;
  throw RaymondError.fromJSON(outcome.error);
}

/**
 * Runs tasks on the calling thread. The parser and its YAML dependency are
 * loaded on first use, so a pooled run never carries them on the main thread.
 */
export function createInlineLanguageService(): LanguageService {
  let tasks: Promise<typeof import('./language-tasks.js')> | undefined;
  const run = async (task: LanguageTask) =>
    unwrap<never>((await (tasks ??= import('./language-tasks.js'))).runLanguageTask(task));
  return {
    prepare: (task) => run({ op: 'prepare', ...task }),
    interpret: (task) => run({ op: 'interpret', ...task }),
    close: async () => {},
  };
}

// Under tsx (tests, development) the worker is the .ts source; once built, the compiled .js.
// Written from the parent folder so that it also holds in the bundled CLI (dist/src/cli/), see scripts/bundle.mjs.
const WORKER_FILE = fileURLToPath(
  new URL(
    import.meta.url.endsWith('.ts')
      ? '../language/language.worker.ts'
      : '../language/language.worker.js',
    import.meta.url,
  ),
);

/** Runs tasks on a Piscina pool of worker threads. */
export function createPoolLanguageService(options: { threads?: number } = {}): LanguageService {
  const threads = options.threads ?? Math.max(1, Math.min(4, availableParallelism() - 1));
  const pool = new Piscina<LanguageTask, Outcome<unknown>>({
    filename: WORKER_FILE,
    minThreads: 1,
    maxThreads: threads,
    // Idle workers must not keep the process alive once a run is over.
    idleTimeout: 1_000,
  });
  const run = async (task: LanguageTask, signal?: AbortSignal) =>
    unwrap<never>(await pool.run(task, signal ? { signal } : {}));
  return {
    prepare: (task, signal) => run({ op: 'prepare', ...task }, signal),
    interpret: (task, signal) => run({ op: 'interpret', ...task }, signal),
    close: () => pool.destroy(),
  };
}

/**
 * Outputs smaller than this are parsed on the calling thread (see
 * createLanguageService). A dispatcher forking 10,000 workers prints ~340 KB,
 * parsed inline in ~30 ms; on the pool it would also start a worker thread,
 * whose heap kept ~12 MB of the orchestrator's memory for the rest of the run.
 * One forking 100,000 prints 3.4 MB: on the pool, the worker's heap and the
 * parse copied back raised the run's peak from 389 to 480 MB, so every
 * output a script may keep (16 MiB) is parsed here.
 */
export const INLINE_BELOW_BYTES = 16 * 1024 * 1024 + 1;

/**
 * The service a run uses. Message passing to a worker thread costs more than
 * parsing a small output (docs/benchmarks.md: ~0.1 ms inline, ~0.4 ms on the
 * pool), so outputs under `inlineBelow` characters are interpreted on the
 * calling thread, with a parser that loads no YAML; larger ones (over a
 * megabyte: tens of thousands of forks) and every markdown prompt
 * (frontmatter is YAML) go to the pool, off the thread that schedules every
 * agent.
 */
export function createLanguageService(options: { inlineBelow?: number } = {}): LanguageService {
  const inlineBelow = options.inlineBelow ?? INLINE_BELOW_BYTES;
  let pool: LanguageService | undefined;
  let interpret: Promise<typeof import('./interpret.js')> | undefined;
  const pooled = () => (pool ??= createPoolLanguageService());
  const inline = async (task: Omit<InterpretTask, 'op'>): Promise<Interpretation> => {
    const { interpretOutput } = await (interpret ??= import('./interpret.js'));
    return interpretOutput(task);
  };
  return {
    prepare: (task, signal) => pooled().prepare(task, signal),
    interpret: (task, signal) =>
      task.output.length < inlineBelow ? inline(task) : pooled().interpret(task, signal),
    close: async () => pool?.close(),
  };
}
