import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { JoinEntry, WorkflowState } from '../../machines/types.js';
import { applyJournal } from '../../src/state/journal.js';
import { expandRead } from '../../src/state/state-file.js';
import type { WrittenState } from '../../machines/written-agent.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The built CLI: end-to-end tests run exactly what users run. */
export const CLI = join(ROOT, 'dist/src/cli/main.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `raymond ARGS` in `cwd` and returns its exit code and output. */
export async function raymond(
  args: string[],
  opts: { cwd: string; env?: Record<string, string>; timeoutMs?: number },
): Promise<CliResult> {
  const r = await execa(process.execPath, [CLI, ...args], {
    cwd: opts.cwd,
    env: { ...opts.env },
    reject: false,
    stdin: 'ignore',
    timeout: opts.timeoutMs ?? 60_000,
    stripFinalNewline: false,
  });
  return { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** The `--json` summary printed on stdout. */
export interface Summary {
  workflow_id: string | null;
  status: string;
  total_cost_usd: number;
  results: Record<string, string>;
  error?: string;
}

export function summary(r: CliResult): Summary {
  try {
    return JSON.parse(r.stdout) as Summary;
  } catch {
    throw new Error(`stdout is not one JSON object:\n${r.stdout}\nstderr:\n${r.stderr}`);
  }
}

/** A run that completed (exit 0) with its main agent's result a `<join>`'s entries: those entries. */
export function joinedEntries(r: CliResult): JoinEntry[] {
  const out = summary(r);
  if (r.code !== 0 || out.status !== 'completed')
    throw new Error(`the run ended ${out.status} (exit ${r.code}):\n${r.stderr.slice(-2000)}`);
  return JSON.parse(out.results.main!) as JoinEntry[];
}

/** A temporary folder that holds a workflow and serves as the run's working directory. */
export class Sandbox {
  readonly dir = mkdtempSync(join(tmpdir(), 'raymond-e2e-'));

  /**
   * `project: false` leaves the sandbox without a `.raymond` of its own, for
   * tests of how the project folder is found. Otherwise the sandbox is its
   * own project: runs in it never find a `.raymond` another process left
   * above it in the temporary folder.
   */
  constructor(opts: { project?: boolean } = {}) {
    if (opts.project !== false) mkdirSync(join(this.dir, '.raymond'));
  }

  /** Writes files (relative paths); `.sh` files become executable. */
  write(files: Record<string, string | Buffer>, base = ''): string {
    const root = join(this.dir, base);
    for (const [name, content] of Object.entries(files)) {
      const path = join(root, name);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, content);
      if (name.endsWith('.sh')) chmodSync(path, 0o755);
    }
    return root;
  }

  read(path: string): string {
    return readFileSync(join(this.dir, path), 'utf8');
  }

  /** The state files of every run made in this sandbox (default state dir). */
  states(stateDir = '.raymond/state'): WorkflowState[] {
    const dir = join(this.dir, stateDir);
    return readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => readRunState(join(dir, f)));
  }

  /** A run's state as Raymond sees it: the snapshot with its journal folded in. */
  state(id: string, stateDir = '.raymond/state'): WorkflowState {
    return readRunState(join(this.dir, stateDir, `${id}.json`));
  }

  run(args: string[], env?: Record<string, string>): Promise<CliResult> {
    return raymond(args, { cwd: this.dir, ...(env ? { env } : {}) });
  }

  remove(): void {
    // A process a test killed with SIGKILL may leave a child that still writes here for a moment.
    rmSync(this.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

/** A script state body: a bash script from lines. */
export function sh(...lines: string[]): string {
  return ['#!/usr/bin/env bash', ...lines, ''].join('\n');
}

/**
 * Whether a process still runs. A zombie counts as dead: orphans are reaped
 * by PID 1, which in some sandboxes never reaps them.
 */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Kills a process group a test read from a file, if it still lives. A
 * group id that is not a positive number (an empty file: the process died
 * before it wrote it) is refused: `process.kill(-0)` would kill the test
 * runner's own group, and with it every test running.
 */
export function killGroupIfAlive(pgid: number): void {
  if (!Number.isInteger(pgid) || pgid <= 1) return;
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // ESRCH: the group already ended.
  }
}

/** Reads a state snapshot (which must always be complete JSON) and folds in its journal, if any. */
export function readRunState(path: string): WorkflowState {
  const snapshot = JSON.parse(readFileSync(path, 'utf8')) as WrittenState;
  const journal = path.replace(/\.json$/, '.journal');
  return expandRead(
    existsSync(journal) ? applyJournal(snapshot, readFileSync(journal, 'utf8'), journal) : snapshot,
    path,
  );
}
