import { stackDepth } from '../../machines/frame-stack.js';
import type { FrameCounts, RunEvent } from '../../machines/run-events.js';
import type { AgentRecord } from '../../machines/types.js';

/** Live figures of a run, for the terminal view (and the server). */
export interface RunProgress {
  counts: FrameCounts;
  costUsd: number;
  /** 0 = unlimited */
  budgetUsd: number;
  /** epoch ms when the run started (or resumed) */
  startedAt: number;
  /** steps completed since startedAt */
  steps: number;
  /** Agents that failed since startedAt; they are counted in `counts.terminated` too. */
  failed: number;
  /** Tool calls the states' permissions refused since startedAt, in order. */
  denials: PermissionDenial[];
}

/** One refused tool call, as `--json` lists it under `permission_denials`. */
export interface PermissionDenial {
  agent: string;
  state: string;
  tool: string;
  input: Record<string, unknown>;
}

/** Progress before a run has said anything. */
export function emptyProgress(now = Date.now()): RunProgress {
  return {
    counts: { idle: 0, invoking: 0, 'awaiting-child': 0, terminated: 0, paused: 0, asking: 0 },
    costUsd: 0,
    budgetUsd: 0,
    startedAt: now,
    steps: 0,
    failed: 0,
    denials: [],
  };
}

/** Frames per machine state when a run (re)starts; trackProgress keeps them from then on. */
export function frameCounts(agents: Iterable<AgentRecord>): FrameCounts {
  const counts: FrameCounts = {
    idle: 0,
    invoking: 0,
    'awaiting-child': 0,
    terminated: 0,
    paused: 0,
    asking: 0,
  };
  for (const a of agents) {
    if (a.status === 'active') {
      if (a.ask) counts.asking++;
      else if (a.joining) counts['awaiting-child']++;
      else counts.idle++;
      counts['awaiting-child'] += stackDepth(a.stack);
    } else if (a.status === 'paused') counts.paused++;
    else counts.terminated++;
  }
  return counts;
}

/**
 * Keeps a run's figures from its events, O(1) per event: a view that reads
 * them never walks the agents. Frames: each live agent's top frame is idle or
 * invoking (or awaiting its workers, in a join), and each return frame on its
 * stack is a caller awaiting its callee.
 */
export function trackProgress(progress: RunProgress, event: RunEvent): void {
  const c = progress.counts;
  switch (event.type) {
    case 'run.started':
      Object.assign(c, event.counts);
      progress.startedAt = event.at;
      progress.budgetUsd = event.budgetUsd;
      progress.costUsd = event.totalCostUsd;
      progress.steps = 0;
      // A resume runs failed agents again, so only this run's failures count.
      progress.failed = 0;
      progress.denials = [];
      break;
    case 'permission.denied':
      progress.denials.push({
        agent: event.agentId,
        state: event.state,
        tool: event.tool,
        input: event.input,
      });
      break;
    case 'step.started':
      c.idle--;
      c.invoking++;
      break;
    case 'step.done': {
      c.invoking--;
      progress.steps++;
      progress.costUsd = event.totalCostUsd;
      const kind = event.decision.kind;
      if (kind === 'call' || kind === 'function') c['awaiting-child']++;
      if (kind === 'result' && event.to === null) c.terminated++;
      else if (kind === 'ask') c.asking++;
      else if (kind === 'fork' && event.decision.join) c['awaiting-child']++;
      else c.idle++;
      if (kind === 'result' && event.to !== null) c['awaiting-child']--;
      c.idle += event.workers.length;
      break;
    }
    case 'agent.paused':
      c.invoking--;
      c.paused++;
      progress.costUsd = event.totalCostUsd;
      break;
    case 'agent.joined':
      c['awaiting-child']--;
      c.idle++;
      break;
    case 'ask.answered':
      // A cost gate asked again still waits (a new ask); one that went on may wait for the workers it forked.
      if (event.gate?.again) break;
      // An ask that ran out of time with nowhere to go fails its agent instead (agent.failed).
      c.asking--;
      if (event.gate?.joining) c['awaiting-child']++;
      else c.idle++;
      c.idle += event.gate?.workers ?? 0;
      break;
    case 'agent.failed':
      if (event.failure.code === 'ERR_ASK_EXPIRED') c.asking--;
      else c.invoking--;
      c.terminated++;
      progress.failed++;
      progress.costUsd = event.totalCostUsd;
      break;
    default:
      break;
  }
}
