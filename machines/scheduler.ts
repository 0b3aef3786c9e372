/**
 * Step slots: at most `maxParallel` steps at once, first come first served,
 * and at most `maxMarkdown` of them Claude Code turns (each takes ~300 MB).
 * Agents that hold a worktree folder go before agents that would need a new
 * one, so the folders alive stay near `maxParallel` however many agents
 * wait. An agent may start only once the state write holding its last step
 * is on disk, and an ended step gives its slot back only then too: so a
 * run killed at any point has at most `maxParallel` steps that ran and
 * whose end is not on disk, which are all a resume runs again. Mutated in
 * place: the queues hold every waiting agent, thousands at fan-out, and
 * copying them per step would make each step cost O(agents).
 */
export interface Slots<R> {
  readonly maxParallel: number;
  /** Markdown steps granted at once now: at most the ceiling, lower while an account's width is (setMarkdownCap). */
  maxMarkdown: number;
  /** The most markdown steps at once the run allows (memory, `--max-parallel`). */
  readonly markdownCeiling: number;
  /** Steps granted and not yet given back: running, or ended with their end not yet on disk. */
  running: number;
  /** Store versions holding ended steps' ends, oldest first: each gives its slot back once on disk. */
  ending: number[];
  /** Agents whose running step is a markdown state. */
  readonly runningMarkdown: Set<string>;
  /** Agents holding a worktree folder: served first. */
  holders: Queue<R>;
  /** Everyone else, in arrival order. */
  others: Queue<R>;
}

/** A first-in first-out queue whose consumed prefix is dropped now and then. */
export interface Queue<R> {
  items: Array<Waiting<R>>;
  head: number;
}

/** An agent waiting for a slot. */
export interface Waiting<R> {
  agentId: string;
  ref: R;
  /** Store version that holds the agent's last step; it may start once that is on disk. */
  readyAt: number;
  markdown: boolean;
  /** It holds a worktree folder, which it gives back only when it ends. */
  holder?: boolean;
}

const emptyQueue = <R>(): Queue<R> => ({ items: [], head: 0 });

export function createSlots<R>(
  maxParallel: number,
  maxMarkdown = Number.POSITIVE_INFINITY,
): Slots<R> {
  return {
    maxParallel: Math.max(1, maxParallel),
    maxMarkdown: Math.max(1, maxMarkdown),
    markdownCeiling: Math.max(1, maxMarkdown),
    running: 0,
    ending: [],
    runningMarkdown: new Set(),
    holders: emptyQueue(),
    others: emptyQueue(),
  };
}

export function enqueue<R>(slots: Slots<R>, waiting: Waiting<R>): void {
  (waiting.holder ? slots.holders : slots.others).items.push(waiting);
}

/** Steps granted that have not ended yet (ended ones may still hold their slot). */
export function inFlight<R>(slots: Slots<R>): number {
  return slots.running - slots.ending.length;
}

/** Agents waiting for a slot. */
export function waitingCount<R>(slots: Slots<R>): number {
  return (
    slots.holders.items.length - slots.holders.head + slots.others.items.length - slots.others.head
  );
}

/**
 * Grants every slot it can, given the highest store version on disk,
 * holders first. A markdown step that must wait for the markdown cap, or
 * that `admit` refuses (the budget's reservation: budget-line.ts), is
 * skipped over, not waited behind, so scripts keep flowing; it keeps its
 * place at the front.
 */
export function grant<R>(
  slots: Slots<R>,
  persisted: number,
  admit: (w: Waiting<R>) => boolean = () => true,
): Array<Waiting<R>> {
  let written = 0;
  while (written < slots.ending.length && slots.ending[written]! <= persisted) written++;
  if (written > 0) {
    slots.ending.splice(0, written);
    slots.running = Math.max(0, slots.running - written);
  }
  const granted: Array<Waiting<R>> = [];
  for (const queue of [slots.holders, slots.others])
    grantFrom(slots, queue, persisted, granted, admit);
  return granted;
}

function grantFrom<R>(
  slots: Slots<R>,
  queue: Queue<R>,
  persisted: number,
  granted: Array<Waiting<R>>,
  admit: (w: Waiting<R>) => boolean,
): void {
  const { items } = queue;
  const take = (w: Waiting<R>) => {
    slots.running++;
    if (w.markdown) slots.runningMarkdown.add(w.agentId);
    granted.push(w);
  };
  while (slots.running < slots.maxParallel && queue.head < items.length) {
    const head = items[queue.head]!;
    if (head.readyAt > persisted) break;
    if (!head.markdown || (slots.runningMarkdown.size < slots.maxMarkdown && admit(head))) {
      queue.head++;
      take(head);
      continue;
    }
    let i = queue.head + 1;
    while (i < items.length && (items[i]!.readyAt > persisted || items[i]!.markdown)) i++;
    if (i >= items.length) break;
    take(items.splice(i, 1)[0]!);
  }
  // Drop the consumed prefix now and then, so the queue does not grow forever.
  if (queue.head > 1024 && queue.head * 2 > items.length) {
    items.splice(0, queue.head);
    queue.head = 0;
  }
}

/**
 * Grants markdown steps only up to `max` at once (an account's width), never
 * above the ceiling nor below one: a step past the account's width would
 * hold a slot that script steps could use, waiting. At least one is granted
 * so that a parked account's refusal reaches each agent in turn.
 */
export function setMarkdownCap<R>(slots: Slots<R>, max: number): void {
  slots.maxMarkdown = Math.max(1, Math.min(slots.markdownCeiling, Math.floor(max)));
}

/**
 * A granted step ended (done, failed or paused), its end recorded in store
 * version `endedAt`: its slot is free once that version is on disk (grant).
 * A markdown step's memory is given back at once.
 */
export function release<R>(slots: Slots<R>, agentId: string, endedAt: number): void {
  slots.ending.push(endedAt);
  slots.runningMarkdown.delete(agentId);
}

/** Forgets every waiting agent and running step: the run is halting. */
export function clearSlots<R>(slots: Slots<R>): void {
  slots.holders = emptyQueue();
  slots.others = emptyQueue();
  slots.running = 0;
  slots.ending = [];
  slots.runningMarkdown.clear();
}
