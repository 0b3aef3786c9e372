import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunEvent } from '../../machines/run-events.js';
import type { AgentAsk } from '../../machines/types.js';
import { formatError } from '../errors.js';
import { runForecaster } from '../plan/run-forecaster.js';
import { resumeWorkflow, startWorkflow } from '../runtime/start-run.js';
import type { RunOutcome } from '../runtime/run-types.js';
import type { ResumeOverrides, RunSettings } from '../settings/run-settings.js';
import { resumeSpecifier } from '../scope/scope.js';
import { lockHolder } from '../state/run-lock.js';
import { lockFilePath, readStateFile, stateFilePath } from '../state/state-file.js';
import { HttpError } from './http-error.js';
import { ServedRun } from './served-run.js';

/** How long a shutdown lets running steps finish before it stops them (graceful-shutdown.md: 5 s). */
export const SHUTDOWN_PATIENCE_MS = 5_000;

/** State file statuses a pool resumes at startup. */
const RESUMABLE = new Set(['running', 'paused', 'asking']);

/** A marker beside a cancelled run's state file: it is not resumed at the next start. */
function cancelMarker(pool: string, id: string): string {
  return join(pool, `${id}.cancelled`);
}

/** A file beside a run's state file naming the registry's workflow id it was started as (the manifest's `id`), which a restart serves again. */
function workflowIdFile(pool: string, id: string): string {
  return join(pool, `${id}.workflow-id`);
}

/** What a new run is given. */
export interface LaunchRequest {
  workflowId: string;
  path: string;
  input: string;
  cwd: string;
  settings: RunSettings;
}

/**
 * The server's runs, each its own composeRun with its own state file in the
 * pool folder (`.raymond/serve-state/`), lock and budget. A run's failure,
 * thrown or returned, is that run's status and last event; nothing it does
 * reaches another run or the server.
 */
export class RunPool {
  private readonly runs = new Map<string, ServedRun>();
  private accepting = true;

  constructor(
    readonly dir: string,
    /** Process settings given again to resumed runs (Claude Code binary, debug logs...). */
    private readonly resumeOverrides: ResumeOverrides,
    private readonly onAsk: (run: ServedRun, ask: AgentAsk) => void,
    private readonly say: (line: string) => void,
    /** Every event of every run, after the run took it (notifications). */
    private readonly onRunEvent?: (run: ServedRun, e: RunEvent) => void,
  ) {}

  /** The event sink of one run. */
  private sink(run: ServedRun): (e: RunEvent) => void {
    return (e) => {
      run.onEvent(e);
      this.onRunEvent?.(run, e);
    };
  }

  get(id: string): ServedRun | undefined {
    return this.runs.get(id);
  }

  /** Every run, newest first. */
  list(): ServedRun[] {
    return [...this.runs.values()].sort(
      (a, b) => b.startedAt - a.startedAt || b.id.localeCompare(a.id),
    );
  }

  /** The runs this pool runs that have not ended (not those another server of the project runs). */
  unfinished(): ServedRun[] {
    return [...this.runs.values()].filter((r) => !r.ended && r.heldBy === undefined);
  }

  /** Whether new runs are taken (false once a shutdown began). */
  get open(): boolean {
    return this.accepting;
  }

  private track(run: ServedRun, promise: Promise<RunOutcome>): void {
    this.runs.set(run.id, run);
    run.done = promise.then(
      (outcome) => run.finish(outcome.status, outcome.error),
      (err: unknown) => {
        const message = formatError(err);
        this.say(`run ${run.id} failed: ${message}`);
        run.failEarly(message);
      },
    );
  }

  /** Starts a run of a workflow; returns at once with the run, which goes on in the background. */
  launch(req: LaunchRequest): ServedRun {
    const id = `${req.workflowId.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 100) || 'workflow'}-${randomBytes(4).toString('hex')}`;
    mkdirSync(this.dir, { recursive: true });
    writeFileSync(workflowIdFile(this.dir, id), `${req.workflowId}\n`);
    const run = new ServedRun(
      id,
      req.workflowId,
      req.path,
      stateFilePath(this.dir, id),
      Date.now(),
      this.onAsk,
    );
    run.budgetUsd = req.settings.budgetUsd;
    this.track(
      run,
      startWorkflow({
        path: req.path,
        input: req.input === '' ? undefined : req.input,
        workflowId: id,
        cwd: req.cwd,
        settings: req.settings,
        stateDir: this.dir,
        onEvent: this.sink(run),
        source: 'served',
        forecaster: runForecaster,
        drain: run.drain.signal,
        kill: run.kill.signal,
        onControl: (c) => {
          run.control = c;
        },
      }),
    );
    return run;
  }

  /**
   * Reads the pool: every run in it is listed, and each that had not
   * finished (and was not cancelled) is resumed, its asks answerable again.
   */
  async recover(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    for (const name of (await readdir(this.dir)).filter((n) => n.endsWith('.json')).sort()) {
      const id = name.slice(0, -'.json'.length);
      const file = join(this.dir, name);
      const state = await readStateFile(file, id).catch((err: unknown) => {
        this.say(`${formatError(err)}; not served`);
        return undefined;
      });
      if (!state) continue;
      // The id it was started as; a run from before that file was kept goes by its workflow's file name.
      const workflowId =
        (await readFile(workflowIdFile(this.dir, id), 'utf8').catch(() => '')).trim() ||
        state.scope.path
          .split(/[/\\]/)
          .pop()!
          .replace(/\.(zip|ya?ml)$/i, '');
      const run = new ServedRun(
        id,
        workflowId,
        resumeSpecifier(state.scope),
        file,
        Date.parse(state.started_at),
        this.onAsk,
      );
      run.seed(state);
      // The state file is the truth: a run that completed while it was being cancelled is completed.
      const cancelled = RESUMABLE.has(state.status) && existsSync(cancelMarker(this.dir, id));
      // Another server of this project (a second `raymond mcp`) runs it: listed, left to that one.
      const elsewhere = RESUMABLE.has(state.status) && lockHolder(lockFilePath(this.dir, id));
      if (!RESUMABLE.has(state.status) || cancelled || elsewhere || !this.accepting) {
        this.runs.set(id, run);
        run.cancelled = cancelled;
        if (elsewhere) {
          run.heldBy = elsewhere.pid;
          run.status = state.status;
        } else run.finish(state.status);
        continue;
      }
      this.track(
        run,
        resumeWorkflow({
          workflowId: id,
          stateDir: this.dir,
          overrides: { ...this.resumeOverrides, onAsk: 'prompt' },
          interactive: false,
          onEvent: this.sink(run),
          source: 'served',
          forecaster: runForecaster,
          drain: run.drain.signal,
          kill: run.kill.signal,
          onControl: (c) => {
            run.control = c;
          },
        }),
      );
    }
  }

  /** Cancels a run: its steps are stopped, it stays resumable by hand, and is not resumed at the next start. */
  async cancel(run: ServedRun): Promise<void> {
    if (run.heldBy !== undefined)
      throw new HttpError(
        409,
        'run_not_active',
        `run "${run.id}" is run by another server of this project (process ${run.heldBy}); cancel it there`,
      );
    run.cancelled = true;
    await writeFile(cancelMarker(this.dir, run.id), `${new Date().toISOString()}\n`).catch(
      () => {},
    );
    run.kill.abort();
    await run.done;
    // It ended for good before the cancel reached it (ServedRun.finish): nothing was cancelled.
    if (!run.cancelled) await rm(cancelMarker(this.dir, run.id), { force: true });
  }

  /**
   * Stops the server's runs: no new run is taken, running steps get
   * SHUTDOWN_PATIENCE_MS to finish, then every step is stopped. Runs stay
   * resumable, and are resumed at the next start.
   */
  async shutdown(patienceMs = SHUTDOWN_PATIENCE_MS): Promise<void> {
    this.accepting = false;
    const live = this.unfinished();
    for (const r of live) r.drain.abort();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(live.map((r) => r.done)),
      new Promise((resolve) => {
        timer = setTimeout(resolve, patienceMs);
      }),
    ]);
    clearTimeout(timer);
    for (const r of live) r.kill.abort();
    await Promise.all(live.map((r) => r.done));
  }

  /**
   * `--clean`: moves the state files (with journals and locks) of the
   * runs that had not finished into `abandoned/<UTC time>/`, before
   * anything is resumed. Finished runs stay.
   */
  static async clean(dir: string): Promise<string[]> {
    const names = await readdir(dir).catch(() => [] as string[]);
    const moved: string[] = [];
    const stamp =
      new Date().toISOString().replace(/[:.]/g, '-') + `-${process.hrtime.bigint() % 1_000_000n}`;
    const target = join(dir, 'abandoned', stamp);
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      const id = name.slice(0, -'.json'.length);
      const state = await readStateFile(join(dir, name), id).catch(() => undefined);
      if (state && !RESUMABLE.has(state.status)) continue;
      await mkdir(target, { recursive: true });
      for (const file of names.filter((n) => n === name || n.startsWith(`${id}.`)))
        await rename(join(dir, file), join(target, file));
      moved.push(id);
    }
    return moved;
  }
}
