import { createWriteStream, mkdirSync, readdirSync, type WriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunEvent } from '../../machines/run-events.js';
import { failureText } from '../../machines/step-failure.js';

/** Where one step writes its raw output. */
export interface StepDebug {
  /** Raw stdout as it arrives (Claude Code's stream, a script's output). */
  stdout(chunk: string): void;
  stderr(chunk: string): void;
  /** Closes the step's files; `meta` is written beside a script's output. */
  finish(meta?: Record<string, unknown>): void;
}

const NOOP: StepDebug = { stdout() {}, stderr() {}, finish() {} };

/**
 * `.raymond/debug/<workflow_id>/`: one file set per step and a
 * `transitions.log`. Step numbers count the run's steps and continue across
 * resumes (read back from the folder): agent ids and state names both hold
 * underscores, so a per-agent count could not be read back from file names. A write that fails is reported once and never
 * fails the run.
 */
export class DebugLog {
  /** Last step number used in this run's folder. */
  private last = 0;
  private transitions: WriteStream | undefined;
  private broken = false;

  constructor(
    readonly dir: string,
    private readonly warn: (text: string) => void,
  ) {
    this.guard(() => {
      mkdirSync(dir, { recursive: true });
      for (const name of readdirSync(dir)) {
        const m = /_(\d{3,})\.(jsonl|stdout|stderr|meta\.json)$/.exec(name);
        if (m) this.last = Math.max(this.last, Number(m[1]));
      }
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
    this.warn(`debug logs disabled: cannot write to ${this.dir}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }

  /** Opens the files of an agent's next step of `state`. */
  step(agentId: string, state: string, kind: 'markdown' | 'script'): StepDebug {
    if (this.broken) return NOOP;
    const n = ++this.last;
    const base = join(this.dir, `${agentId}_${state.replace(/\.[^.]+$/, '')}_${String(n).padStart(3, '0')}`);
    if (kind === 'markdown') {
      let stream: WriteStream | undefined;
      this.guard(() => {
        stream = createWriteStream(`${base}.jsonl`);
        stream.on('error', (err) => this.fail(err));
      });
      return { stdout: (c) => stream?.write(c), stderr() {}, finish: () => stream?.end() };
    }
    let out = '';
    let err = '';
    return {
      stdout: (c) => (out += c),
      stderr: (c) => (err += c),
      finish: (meta) => {
        if (this.broken) return;
        const writes = [writeFile(`${base}.stdout`, out), writeFile(`${base}.stderr`, err), writeFile(`${base}.meta.json`, `${JSON.stringify(meta ?? {}, null, 2)}\n`)];
        Promise.all(writes).catch((e: unknown) => this.fail(e));
      },
    };
  }

  /** Records a run event: steps and failures go to transitions.log. */
  event(e: RunEvent): void {
    const line = transitionLine(e);
    if (line !== undefined) this.transition(line);
  }

  /** Appends one line to transitions.log. */
  private transition(line: string): void {
    this.guard(() => {
      if (!this.transitions) {
        this.transitions = createWriteStream(join(this.dir, 'transitions.log'), { flags: 'a' });
        this.transitions.on('error', (err) => this.fail(err));
      }
      this.transitions.write(`${new Date().toISOString()} ${line}\n`);
    });
  }

  async close(): Promise<void> {
    const t = this.transitions;
    if (t) await new Promise<void>((ok) => t.end(ok));
  }
}

/** The transitions.log line of an event, if it has one. */
export function transitionLine(e: RunEvent): string | undefined {
  switch (e.type) {
    case 'step.done':
      return `[${e.agentId}] ${e.from} -> ${e.to ?? '(terminated)'} (${e.decision.kind}) cost=$${e.costUsd.toFixed(6)} total=$${e.totalCostUsd.toFixed(6)} session=${e.session ?? '-'} depth=${e.depth}`;
    case 'agent.paused':
    case 'agent.failed':
      return `[${e.agentId}] ${e.state} ${e.type === 'agent.paused' ? 'paused' : 'failed'}: ${failureText(e.failure)}`;
    default:
      return undefined;
  }
}
