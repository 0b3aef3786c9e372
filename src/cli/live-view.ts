import { usd } from '../../machines/money.js';
import type { RunEvent } from '../../machines/run-events.js';
import type { RunProgress } from '../runtime/run-progress.js';
import { eventLine, shortStep, stateLabel } from './describe-event.js';
import { padToColumns, columnsOf } from './text-columns.js';
import { duration, keepEnd, wrapItems } from './text-layout.js';

/** A view of a run's events that keeps a status area at the bottom of a terminal and scrolls events above it. */
export interface LiveView {
  /** Shows one event of the run. */
  event(e: RunEvent): void;
  /** Erases the status area; further events print as plain lines. */
  stop(): void;
}

/** Anything with `write`; `columns`/`rows` are read on every redraw so terminal resizes take effect. */
type Stream = NodeJS.WriteStream | { write(s: string): boolean; columns?: number; rows?: number };

const MAX_AGENTS = 5;
/** Agents remembered beyond those shown, so a `print` after a few other events still knows its state. */
const TRACKED = 64;
const MAX_BATCH = 200;
const RATE_WINDOW_MS = 5000;
const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';

interface Activity {
  id: string;
  doing: string;
  state: string;
  at: number;
}

/**
 * Creates a view for interactive terminals: a few status lines (counts, cost, elapsed time, throughput
 * and the most recently active agents) stay at the bottom while events scroll above them. Output is
 * coalesced so thousands of events per second cost at most one write per `intervalMs`.
 */
export function createLiveView(opts: {
  stream: Stream;
  snapshot: () => RunProgress;
  verbose: boolean;
  now?: () => number;
  intervalMs?: number;
}): LiveView {
  const { stream, verbose } = opts;
  const now = opts.now ?? Date.now;
  let pending: string[] = [];
  let pendingPlain = 0;
  let dropped = 0;
  let drawnLines = 0;
  let drawnText = '';
  let lastDrawAt = -Infinity;
  let cursorHidden = false;
  let stopped = false;
  let last: RunProgress | undefined;
  let samples: { t: number; steps: number }[] = [];
  let sampledStart: number | undefined;
  const agents = new Map<string, Activity>();

  const touch = (id: string, doing: string, state?: string) => {
    const prev = agents.get(id);
    // Re-inserting keeps the Map in recency order, so the newest agents are simply the last entries.
    agents.delete(id);
    agents.set(id, { id, doing, state: state ?? prev?.state ?? '', at: now() });
    if (agents.size > TRACKED) agents.delete(agents.keys().next().value!);
  };

  const stepsPerSecond = (snap: RunProgress, t: number): number => {
    if (sampledStart !== snap.startedAt) {
      // A resume restarts the step count, so older samples would give a negative rate.
      samples = [{ t: snap.startedAt, steps: 0 }];
      sampledStart = snap.startedAt;
    }
    const tail = samples[samples.length - 1]!;
    if (tail.t === t) tail.steps = snap.steps;
    else samples.push({ t, steps: snap.steps });
    while (samples.length > 2 && samples[1]!.t <= t - RATE_WINDOW_MS) samples.shift();
    const first = samples[0]!;
    const dt = t - first.t;
    return dt > 0 ? ((snap.steps - first.steps) * 1000) / dt : 0;
  };

  const statusLines = (): string[] => {
    try {
      last = opts.snapshot();
    } catch {
      // A display glitch must never take the run down; keep showing the previous figures.
    }
    if (!last) return [];
    const t = now();
    const c = last.counts;
    const budget = last.budgetUsd > 0 ? usd(last.budgetUsd) : 'unlimited';
    const rate = stepsPerSecond(last, t).toFixed(1);
    const columns = stream.columns && stream.columns > 0 ? stream.columns : 80;
    const lines = wrapItems(
      [
        ['', 'raymond'],
        ['  ', `${c.invoking} running`],
        [' · ', `${c.idle} idle`],
        [' · ', `${c['awaiting-child']} awaiting`],
        [' · ', `${c.terminated} done`],
        [' · ', `${c.paused} paused`],
        ...(c.asking > 0 ? ([[' · ', `${c.asking} asking`]] as Array<[string, string]>) : []),
        ['   ', `${usd(last.costUsd)} / ${budget}`],
        ['   ', duration(t - last.startedAt)],
        ['   ', `${rate} steps/s`],
      ],
      columns,
    );
    const recent = [...agents.values()].slice(-MAX_AGENTS).reverse();
    // Terminal columns, not .length: a CJK name takes two a character, and a line wider than the terminal wraps and breaks erasing.
    const idWidth = Math.max(0, ...recent.map((a) => columnsOf(a.id)));
    const doingWidth = Math.max(0, ...recent.map((a) => columnsOf(a.doing)));
    for (const a of recent) {
      lines.push(
        keepEnd(
          `  ${padToColumns(a.id, idWidth)}  ${padToColumns(a.doing, doingWidth)}  ${a.state}`,
          `  ${duration(t - a.at)}`,
          columns,
        ),
      );
    }
    // Keep one row free so the area never scrolls its own first line off screen, which would break erasing.
    const maxRows = stream.rows && stream.rows > 1 ? stream.rows - 1 : lines.length;
    return lines.slice(0, maxRows);
  };

  const erase = () => (drawnLines > 0 ? `\x1b[${drawnLines}F\x1b[J` : '');

  const takePending = (): string => {
    if (dropped > 0) pending.push(`... and ${dropped} more lines`);
    const text = pending.map((l) => `${l}\n`).join('');
    pending = [];
    pendingPlain = 0;
    dropped = 0;
    return text;
  };

  /** Erases, writes pending lines and redraws, in one write so the terminal never shows a half-drawn frame. */
  const render = (force: boolean) => {
    const lines = statusLines();
    const text = lines.map((l) => `${l}\n`).join('');
    // Elapsed time and ages are shown in seconds, so an unchanged text means nothing visible changed.
    if (!force && pending.length === 0 && text === drawnText && now() - lastDrawAt < 1000) return;
    const prefix = cursorHidden ? '' : HIDE_CURSOR;
    cursorHidden = true;
    stream.write(prefix + erase() + takePending() + text);
    drawnLines = lines.length;
    drawnText = text;
    lastDrawAt = now();
  };

  const timer = setInterval(() => render(false), opts.intervalMs ?? 100);
  timer.unref();

  /** Queues a scrolled line; past MAX_BATCH per flush only a count is kept, so bursts cost no memory. */
  const scroll = (line: string, warning = false) => {
    if (stopped) {
      stream.write(`${line}\n`);
      return;
    }
    if (warning) {
      pending.push(line);
      // Warnings are rare and matter; showing them late (or not at all) would hide the reason for a pause.
      render(true);
      return;
    }
    if (pendingPlain >= MAX_BATCH) {
      dropped++;
      return;
    }
    pending.push(line);
    pendingPlain++;
  };

  /** Which agents the recent-activity lines show, and what each last did. */
  const follow = (event: RunEvent) => {
    if (event.type === 'step.started')
      touch(event.agentId, 'invoking', stateLabel(event.state, event.scope));
    else if (event.type === 'step.done') touch(event.agentId, shortStep(event), event.from);
    else if (event.type === 'print') touch(event.agentId, 'print');
  };

  return {
    event(e) {
      if (!stopped) follow(e);
      const line = eventLine(e, verbose);
      if (line) scroll(line.text, line.warning);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      stream.write(erase() + takePending() + SHOW_CURSOR);
      drawnLines = 0;
    },
  };
}
