import { StringDecoder } from 'node:string_decoder';
import { execa, type ResultPromise } from 'execa';
import { processCpuMs } from '../../executors/process-cpu.js';
import { killGroup, registerGroup, unregisterGroup } from '../../executors/process-registry.js';
import { timerDelay } from '../../timer-delay.js';

/**
 * What a turn needs of a live process besides its session: the same
 * directory, effort and grant (fixed when Claude Code starts: its tools,
 * MCP servers, system prompt, directories and permissions), and a model it
 * can switch to (a named one; Claude Code's default cannot be asked for by name).
 */
export interface WarmFit {
  cwd: string;
  model: string | undefined;
  effort: string | undefined;
  /** The grant's grantKey, with the fallback models: what else the process's flags fix. */
  grant: string;
  /** The agent its tools' environment names (step-key.ts turnEnvironment). */
  agent: string;
}

/** How one turn on a live process ended. */
export interface WarmTurn {
  /** `result`: its result line came; anything else: the process is of no more use. */
  ended: 'result' | 'exit' | 'timeout' | 'aborted';
  exitCode: number | null;
  signal: string | null;
  stderrTail: string;
  /** Set when the process could not be started at all. */
  spawnError?: string;
  /** CPU time the process used during the turn (ms), as sampled at its start and end. */
  cpuMs?: number;
}

/** What a turn is given: the prompt, where its output goes, and how it may be stopped. */
export interface WarmTurnRequest {
  prompt: string;
  /** The turn's output as it arrives; whoever reads it calls `endTurn` at its result line. */
  onStdout: (text: string) => void;
  signal: AbortSignal;
  inactivityMs: number;
  /** Switch the model first (a `set_model` control request), when it differs from the process's. */
  model?: string;
}

const STDERR_TAIL = 4096;
/** Longest line looked at for a control response. */
const CONTROL_LINE_CHARS = 64 * 1024;
const KILL_GRACE_MS = 2000;

/**
 * One live `claude -p --input-format stream-json` process: each turn is one
 * user message on its stdin, ended by the `result` line it prints; the
 * session, the conversation and the cost carry over as with `--resume`.
 * It runs in its own process group, registered like every step's, and exits
 * by itself when its stdin closes (Raymond gone): it never outlives Raymond
 * idle.
 */
export class WarmProcess {
  private readonly child: ResultPromise<{
    detached: true;
    buffer: false;
    reject: false;
    cleanup: false;
    stdin: 'pipe';
  }>;
  private readonly pid: number | undefined;
  private readonly decoder = new StringDecoder('utf8');
  /** The start of the line being read, to spot control responses (short lines); a long line is not kept. */
  private partial = '';
  private longLine = false;
  private stderr = '';
  private exited:
    { exitCode: number | null; signal: string | null; spawnError?: string } | undefined;
  /** The turn under way: where its output goes, and how to end it. */
  private current: { output: (text: string) => void; end: (t: WarmTurn) => void } | undefined;
  private controls = new Map<string, (ok: boolean) => void>();
  private nextControl = 0;
  busy = false;
  /** When its last turn ended (ms epoch): the longest idle goes first under memory pressure. */
  idleSince = Date.now();

  readonly cwd: string;
  model: string | undefined;
  readonly effort: string | undefined;
  /** The grantKey of the grant it was started with. */
  readonly grant: string;
  /** The agent its environment names. */
  readonly agent: string;

  constructor(
    bin: string,
    args: string[],
    /** Its directory, model, effort and grant, as WarmSessions compares them. */
    fit: WarmFit,
    /** The run's own environment variables (a server run's `environment`), under Raymond's. */
    env: Readonly<Record<string, string>> = {},
  ) {
    ({
      cwd: this.cwd,
      model: this.model,
      effort: this.effort,
      grant: this.grant,
      agent: this.agent,
    } = fit);
    this.child = execa(bin, [...args, '--input-format', 'stream-json'], {
      cwd: this.cwd,
      // A Raymond run inside a Claude Code session must not look nested to the child.
      env: { ...env, CLAUDECODE: undefined },
      extendEnv: true,
      stdin: 'pipe',
      detached: true,
      buffer: false,
      reject: false,
      cleanup: false,
    });
    this.pid = this.child.pid;
    if (this.pid !== undefined) registerGroup(this.pid);
    // A process gone while we write to it is seen by its exit, not by an EPIPE.
    this.child.stdin.on('error', () => {});
    this.child.stdout.on('data', (chunk: Buffer) => this.onStdout(this.decoder.write(chunk)));
    this.child.stderr.on(
      'data',
      (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL)),
    );
    void this.child.then((r) => {
      if (this.pid !== undefined) {
        killGroup(this.pid, 'SIGKILL');
        unregisterGroup(this.pid);
      }
      this.exited = { exitCode: r.exitCode ?? null, signal: r.signal ?? null };
      if (r.failed && r.exitCode === undefined && r.signal === undefined)
        this.exited.spawnError = r.originalMessage || r.shortMessage;
      this.current?.end({ ended: 'exit', ...this.exited, stderrTail: this.stderr });
    });
  }

  /** Whether it can take another turn. */
  get alive(): boolean {
    return this.exited === undefined;
  }

  /** Runs one turn: the model switched if asked, then the prompt; resolves when the result line came or the process is done for. */
  async turn(req: WarmTurnRequest): Promise<WarmTurn> {
    this.busy = true;
    let idle: NodeJS.Timeout | undefined;
    let killed: 'timeout' | 'aborted' | undefined;
    const stop = (why: 'timeout' | 'aborted') => {
      killed ??= why;
      this.kill();
    };
    const onAbort = () => stop('aborted');
    const cpuBefore = this.pid === undefined ? undefined : processCpuMs(this.pid);
    const cpuSpent = () => {
      const now = this.pid === undefined ? undefined : processCpuMs(this.pid);
      return now === undefined || cpuBefore === undefined ? 0 : Math.max(0, now - cpuBefore);
    };
    try {
      if (this.exited) return { ended: 'exit', ...this.exited, stderrTail: this.stderr };
      return await new Promise<WarmTurn>((resolve) => {
        const touch = () => {
          clearTimeout(idle);
          idle = setTimeout(() => stop('timeout'), timerDelay(req.inactivityMs));
        };
        this.current = {
          output: (text) => {
            touch();
            req.onStdout(text);
          },
          end: (t) => resolve({ ...t, ...(killed ? { ended: killed } : {}), cpuMs: cpuSpent() }),
        };
        touch();
        if (req.signal.aborted) return onAbort();
        req.signal.addEventListener('abort', onAbort, { once: true });
        const send = () =>
          this.write({ type: 'user', message: { role: 'user', content: req.prompt } });
        if (req.model !== undefined && req.model !== this.model) {
          // Refused, the turn would run on the wrong model: the process goes, and the retry starts one with --model.
          this.control({ subtype: 'set_model', model: req.model }, (ok) =>
            ok ? send() : this.kill(),
          );
          this.model = req.model;
        } else {
          send();
        }
      });
    } finally {
      clearTimeout(idle);
      req.signal.removeEventListener('abort', onAbort);
      this.current = undefined;
      this.busy = false;
      this.idleSince = Date.now();
    }
  }

  /** The turn's reader saw its result line: the turn is over, the process waits for the next. */
  endTurn(): void {
    this.current?.end({ ended: 'result', exitCode: null, signal: null, stderrTail: this.stderr });
  }

  /** Ends the process group now (and SIGKILL if it lingers). */
  kill(): void {
    if (this.pid === undefined || this.exited) return;
    killGroup(this.pid, 'SIGTERM');
    setTimeout(
      () => this.pid !== undefined && !this.exited && killGroup(this.pid, 'SIGKILL'),
      KILL_GRACE_MS,
    ).unref();
  }

  private write(message: unknown): void {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Sends a control request and calls `then` with whether it succeeded once it is answered. */
  private control(request: Record<string, unknown>, then: (ok: boolean) => void): void {
    const id = `raymond-${++this.nextControl}`;
    this.controls.set(id, then);
    this.write({ type: 'control_request', request_id: id, request });
  }

  private onStdout(text: string): void {
    this.current?.output(text);
    // Control responses are read here, from lines kept only while short: Claude Code's other lines can be megabytes.
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      if (!this.longLine) this.onLine(this.partial + text.slice(start, nl));
      this.partial = '';
      this.longLine = false;
      start = nl + 1;
    }
    if (this.longLine) return;
    this.partial += text.slice(start);
    if (this.partial.length > CONTROL_LINE_CHARS) {
      this.partial = '';
      this.longLine = true;
    }
  }

  private onLine(line: string): void {
    if (line.includes('"control_response"')) {
      const response = parse(line)?.response as Record<string, unknown> | undefined;
      const id = typeof response?.request_id === 'string' ? response.request_id : undefined;
      const then = id === undefined ? undefined : this.controls.get(id);
      if (then) {
        this.controls.delete(id!);
        then(response?.subtype === 'success');
      }
    }
  }
}

function parse(line: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(line) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
