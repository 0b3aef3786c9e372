/**
 * Step slots: at most `maxParallel` steps at once, first come first served,
 * and at most `maxMarkdown` of them Claude Code turns (each takes ~300 MB).
 * An agent may start only once the state write holding its last step is on
 * disk. Mutated in place: the queue holds every waiting agent, thousands at
 * fan-out, and copying it per step would make each step cost O(agents).
 */
export interface Slots<R> {
  readonly maxParallel: number;
  readonly maxMarkdown: number;
  running: number;
  /** Agents whose running step is a markdown state. */
  readonly runningMarkdown: Set<string>;
  queue: Array<Waiting<R>>;
  head: number;
}

/** An agent waiting for a slot. */
export interface Waiting<R> {
  agentId: string;
  ref: R;
  /** Store version that holds the agent's last step; it may start once that is on disk. */
  readyAt: number;
  markdown: boolean;
}

export function createSlots<R>(maxParallel: number, maxMarkdown = Number.POSITIVE_INFINITY): Slots<R> {
  return { maxParallel: Math.max(1, maxParallel), maxMarkdown: Math.max(1, maxMarkdown), running: 0, runningMarkdown: new Set(), queue: [], head: 0 };
}

export function enqueue<R>(slots: Slots<R>, waiting: Waiting<R>): void {
  slots.queue.push(waiting);
}

/**
 * Grants every slot it can, given the highest store version on disk. A
 * markdown step that must wait for the markdown cap is skipped over, not
 * waited behind, so scripts keep flowing; it keeps its place at the front.
 */
export function grant<R>(slots: Slots<R>, persisted: number): Array<Waiting<R>> {
  const granted: Array<Waiting<R>> = [];
  const { queue } = slots;
  const take = (w: Waiting<R>) => {
    slots.running++;
    if (w.markdown) slots.runningMarkdown.add(w.agentId);
    granted.push(w);
  };
  while (slots.running < slots.maxParallel && slots.head < queue.length) {
    const head = queue[slots.head]!;
    if (head.readyAt > persisted) break;
    if (!head.markdown || slots.runningMarkdown.size < slots.maxMarkdown) {
      slots.head++;
      take(head);
      continue;
    }
    let i = slots.head + 1;
    while (i < queue.length && (queue[i]!.readyAt > persisted || queue[i]!.markdown)) i++;
    if (i >= queue.length) break;
    take(queue.splice(i, 1)[0]!);
  }
  // Drop the consumed prefix now and then, so the queue does not grow forever.
  if (slots.head > 1024 && slots.head * 2 > queue.length) {
    queue.splice(0, slots.head);
    slots.head = 0;
  }
  return granted;
}

/** A granted step ended (done, failed or paused). */
export function release<R>(slots: Slots<R>, agentId: string): void {
  slots.running = Math.max(0, slots.running - 1);
  slots.runningMarkdown.delete(agentId);
}

/** Forgets every waiting agent and running step: the run is halting. */
export function clearSlots<R>(slots: Slots<R>): void {
  slots.queue = [];
  slots.head = 0;
  slots.running = 0;
  slots.runningMarkdown.clear();
}
