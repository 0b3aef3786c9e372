import type { TurnWidth } from '../agents/agent-backend.js';
import { waitInLine, type Waiter } from '../agents/width-line.js';

/**
 * A worker's own places (`--concurrency`): at most `size` steps run on
 * this machine at once, scripts and turns alike. A turn takes its place
 * only once its account's width let it start (`after`): a turn waiting for
 * its account holds none of them, so a script queued behind it runs.
 */
export class WorkerGate {
  private taken = 0;
  private readonly line: Array<Waiter<true>> = [];

  constructor(readonly size: number) {}

  /** Steps running here now. */
  get running(): number {
    return this.taken;
  }

  /** Waits for a place; aborted, throws ERR_AGENT_FAILED `stopped` (see waitInLine). */
  enter(signal: AbortSignal): Promise<void> {
    if (this.taken < this.size && this.line.length === 0) {
      this.taken++;
      return Promise.resolve();
    }
    return waitInLine(this.line, signal, () => undefined);
  }

  /** Gives a place back: to the step first in line, if any (the count stays). */
  leave(): void {
    const next = this.line.shift();
    if (next) next.go(true);
    else this.taken--;
  }

  /**
   * A turn's width with this machine's place after it: the turn waits for
   * its account first, then for a place here. No width (the run's
   * `--no-adaptive-width`): the place alone.
   */
  after(width: TurnWidth | undefined): TurnWidth {
    return {
      acquire: async (signal) => {
        await width?.acquire(signal);
        try {
          await this.enter(signal);
        } catch (err) {
          await width?.release(false);
          throw err;
        }
      },
      release: async (answered) => {
        this.leave();
        await width?.release(answered);
      },
      limited: (status, delayMs) => width?.limited(status, delayMs),
      park: (resetsAt, message) => width?.park(resetsAt, message),
    };
  }
}
