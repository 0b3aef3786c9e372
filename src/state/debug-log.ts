import {
  closeSync,
  createWriteStream,
  openSync,
  readSync,
  readdirSync,
  statSync,
  type WriteStream,
} from 'node:fs';
import { join } from 'node:path';
import type { RunEvent } from '../../machines/run-events.js';
import { failureText } from '../../machines/step-failure.js';
import { AppendFile } from './append-file.js';
import { makeFoldersSync } from '../make-folders.js';

/** What a script step leaves in `scripts.jsonl`. */
export interface ScriptRecord {
  script: string;
  argv: string[];
  cwd: string;
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  duration_ms: number;
  /** The variables Raymond set or unset for it (the rest is Raymond's own environment). */
  env: Record<string, string | undefined>;
  stdout: string;
  stderr: string;
  /** Bytes of output left out, when a cap cut it. */
  dropped_bytes?: number;
}

/** Where one step writes its raw output. */
export interface StepDebug {
  /** Claude Code's raw stream, as it arrives. */
  stream(chunk: string): void;
  /** A script step's record, once it ended. */
  script(record: ScriptRecord): void;
  /** The step is over: its stream file is closed. */
  finish(): void;
}

const NOOP: StepDebug = { stream() {}, script() {}, finish() {} };
const SCRIPTS = 'scripts.jsonl';
/** Most bytes of a Claude Code stream waiting for the disk before more are left out of its debug file. */
const MAX_PENDING_BYTES = 16 << 20;
/** How much of scripts.jsonl is read back to continue the step numbers after a resume. */
const TAIL_BYTES = 1 << 20;

/**
 * `.raymond/debug/<workflow_id>/`: Claude Code's raw stream per markdown
 * step (`<agent>_<state>_<NNN>.jsonl`), one line per script step in
 * `scripts.jsonl`, and `transitions.log`. Scripts are many and short, so
 * their records share one append stream instead of opening files per step.
 * Step numbers count the run's steps and continue across resumes. A write
 * that fails is reported once and never fails the run. The shared files
 * are written in batches (append-file.ts): a record reaches the disk within
 * 50 ms of its step, or when the run ends.
 */
export class DebugLog {
  /** Last step number used in this run's folder. */
  private last = 0;
  private readonly transitions: AppendFile;
  private readonly scripts: AppendFile;
  private broken = false;

  constructor(
    readonly dir: string,
    private readonly warn: (text: string) => void,
  ) {
    this.transitions = new AppendFile(join(dir, 'transitions.log'), (err) => this.fail(err));
    this.scripts = new AppendFile(join(dir, SCRIPTS), (err) => this.fail(err));
    this.guard(() => {
      makeFoldersSync(dir);
      for (const name of readdirSync(dir)) {
        const m = /_(\d{3,})\.(jsonl|stdout|stderr|meta\.json)$/.exec(name);
        if (m) this.last = Math.max(this.last, Number(m[1]));
      }
      this.last = Math.max(this.last, lastScriptStep(join(dir, SCRIPTS)));
    });
  }

  private guard(fn: () => void): void {
    if (this.broken) return;
    try {
      fn();
    } catch (err) {
      this.fail(err);
    }
  }

  private fail(err: unknown): void {
    if (this.broken) return;
    this.broken = true;
    this.warn(
      `debug logs disabled: cannot write to ${this.dir}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
    );
  }

  /** Opens the debug record of an agent's next step of `state`. */
  step(agentId: string, state: string, kind: 'markdown' | 'script'): StepDebug {
    if (this.broken) return NOOP;
    const n = ++this.last;
    if (kind === 'script') {
      return {
        stream() {},
        script: (record) => {
          if (!this.broken)
            this.scripts.write(
              `${JSON.stringify({ step: n, agent: agentId, state, ...record })}\n`,
            );
        },
        finish() {},
      };
    }
    let file: WriteStream | undefined;
    this.guard(() => {
      file = createWriteStream(
        join(
          this.dir,
          `${agentId}_${state.replace(/\.[^.]+$/, '')}_${String(n).padStart(3, '0')}.jsonl`,
        ),
      );
      file.on('error', (err) => this.fail(err));
    });
    // A stream that outruns the disk would otherwise wait in memory: past the bound, chunks are left out and counted.
    let dropped = 0;
    const stream = (c: string) => {
      if (!file) return;
      if (file.writableLength > MAX_PENDING_BYTES) dropped += Buffer.byteLength(c);
      else file.write(c);
    };
    const finish = () => {
      if (dropped > 0)
        file?.write(
          `{"raymond_debug":"${dropped} bytes of the stream were left out while the disk was behind"}\n`,
        );
      file?.end();
    };
    return { stream, script() {}, finish };
  }

  /** Records a run event: steps and failures go to transitions.log. */
  event(e: RunEvent): void {
    const line = transitionLine(e);
    if (line === undefined) return;
    if (!this.broken) this.transitions.write(`${new Date().toISOString()} ${line}\n`);
  }

  /** Records the input a new run started with (`raymond record` makes it a test's `input:`). */
  input(text: string): void {
    if (!this.broken)
      this.transitions.write(`${new Date().toISOString()} run input: ${JSON.stringify(text)}\n`);
  }

  /** Writes what waits and closes the files. */
  close(): void {
    this.transitions.close();
    this.scripts.close();
  }
}

/** The highest step number in the last megabyte of scripts.jsonl (0 if none). */
function lastScriptStep(path: string): number {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return 0;
  }
  const length = Math.min(size, TAIL_BYTES);
  const buffer = Buffer.alloc(length);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, buffer, 0, length, size - length);
  } finally {
    closeSync(fd);
  }
  let last = 0;
  for (const m of buffer.toString('utf8').matchAll(/^\{"step":(\d+),/gm))
    last = Math.max(last, Number(m[1]));
  return last;
}

/** The transitions.log line of an event, if it has one. */
export function transitionLine(e: RunEvent): string | undefined {
  switch (e.type) {
    case 'step.done':
      return `[${e.agentId}] ${e.from} -> ${e.to ?? '(terminated)'} (${e.decision.kind}) cost=$${e.costUsd.toFixed(6)} total=$${e.totalCostUsd.toFixed(6)} session=${e.session ?? '-'} depth=${e.depth}`;
    case 'agent.paused':
    case 'agent.failed':
      return `[${e.agentId}] ${e.state} ${e.type === 'agent.paused' ? 'paused' : 'failed'}: ${failureText(e.failure)}`;
    case 'permission.denied':
      return `[${e.agentId}] ${e.state} denied: ${e.shown} input=${JSON.stringify(e.input)}`;
    // The answer's text is kept so that `raymond record` can replay it.
    case 'ask.answered':
      return `[${e.agentId}] ask ${e.askId} ${e.expired ? 'expired' : `answered: ${JSON.stringify(e.text ?? '')}`}`;
    default:
      return undefined;
  }
}
