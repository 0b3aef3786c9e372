import { clearLine, createInterface, cursorTo, type Interface } from 'node:readline';
import type { AgentAsk } from '../../machines/types.js';

/** Asks questions at the terminal (`--on-ask=prompt`) while the run goes on. */
export interface AskPrompter {
  /** Queues an ask; asks are put in the order they came (oldest first), one at a time. */
  add(ask: AgentAsk): void;
  /** An ask that needs no answer any more (its time ran out): dropped, or, being asked, withdrawn. */
  withdraw(askId: string, why: string): void;
  /** Writes a line of the run's progress above the question being typed. */
  print(text: string): void;
  /** Whether a question is on the screen (progress then goes through `print`). */
  readonly asking: boolean;
  /** Stops reading the terminal, so the process can end. */
  close(): void;
}

/**
 * The terminal side of `--on-ask=prompt`: shows each question with its
 * agent and id, reads one line as the answer, and hands it to `answer`.
 * Reading starts only with the first ask, so a run that never asks leaves
 * stdin alone. Ctrl-C while typing interrupts the run as anywhere else.
 */
export function createAskPrompter(opts: {
  input: NodeJS.ReadableStream;
  output: NodeJS.WriteStream;
  answer: (askId: string, text: string) => void;
}): AskPrompter {
  const { output } = opts;
  const queue: AgentAsk[] = [];
  let current: AgentAsk | undefined;
  let rl: Interface | undefined;
  const tty = output.isTTY === true;

  const reader = (): Interface => {
    if (rl) return rl;
    rl = createInterface({
      input: opts.input,
      output,
      terminal: tty && (opts.input as NodeJS.ReadStream).isTTY === true,
    });
    rl.on('line', (line) => {
      const ask = current;
      if (!ask) return;
      current = undefined;
      opts.answer(ask.id, line);
      output.write(`raymond: answered ${ask.id} (${ask.agent_id})\n`);
      next();
    });
    // readline takes Ctrl-C from the terminal; the run's own handlers decide what it does.
    rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
    return rl;
  };

  const next = () => {
    if (current || queue.length === 0) return;
    current = queue.shift()!;
    const until = current.timeout_at ? ` (until ${current.timeout_at})` : '';
    const others = queue.length > 0 ? `; ${queue.length} more waiting` : '';
    output.write(
      `\n[${current.agent_id}] asks (${current.id}${until}${others}):\n${current.prompt}\n`,
    );
    const r = reader();
    r.setPrompt('answer> ');
    r.prompt();
  };

  return {
    add(ask) {
      if (current?.id === ask.id || queue.some((a) => a.id === ask.id)) return;
      queue.push(ask);
      queue.sort((a, b) => a.created_at.localeCompare(b.created_at));
      next();
    },
    withdraw(askId, why) {
      const i = queue.findIndex((a) => a.id === askId);
      if (i >= 0) queue.splice(i, 1);
      if (current?.id !== askId) return;
      current = undefined;
      this.print(`raymond: ${askId} ${why}; no answer needed`);
      next();
    },
    print(text) {
      if (!current || !rl) {
        output.write(`${text}\n`);
        return;
      }
      if (tty) {
        clearLine(output, 0);
        cursorTo(output, 0);
      }
      output.write(`${text}\n`);
      rl.prompt(true);
    },
    get asking() {
      return current !== undefined;
    },
    close() {
      rl?.close();
      rl = undefined;
    },
  };
}
