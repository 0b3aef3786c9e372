import { widthText } from '../../machines/width-text.js';
import { usd } from '../../machines/money.js';
import { basename } from 'node:path';
import type { RunEvent } from '../../machines/run-events.js';
import type { WorkflowTarget } from '../../machines/types.js';
import { failureText } from '../../machines/step-failure.js';
import { exhaustive } from '../../machines/exhaustive.js';

/** Shortens a payload to one line for progress output. */
export function preview(text: string, max = 100): string {
  const line = text.trim().replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max - 3)}...` : line;
}

/** Fork attributes as a progress line shows them: each value shortened like an input, since one may be megabytes. */
function attrs(a: Record<string, string>): string {
  const parts = Object.entries(a).map(([k, v]) => `${k}=${JSON.stringify(preview(v, 60))}`);
  return parts.length ? ` ${parts.join(' ')}` : '';
}

/** A state as shown: with its workflow's name when it is in another workflow than the run's (`other/START.md`). */
export function stateLabel(state: string, scope: string | undefined): string {
  return scope ? `${basename(scope)}/${state}` : state;
}

/** A cross-workflow tag's callee as shown: the specifier as written, and the state it starts at. */
function callee(workflow: WorkflowTarget, entry: string): string {
  return `${workflow.spec} (${entry})`;
}

/** One progress line for a completed step. */
export function describeStep(event: Extract<RunEvent, { type: 'step.done' }>): string {
  const d = event.decision;
  const head = `[${event.agentId}] ${event.from} ->`;
  const input = (i: string | undefined) => (i === undefined ? '' : ` (input: ${preview(i, 60)})`);
  switch (d.kind) {
    case 'goto':
      return `${head} goto ${d.target}${input(d.input)}`;
    case 'reset':
      if (d.workflow)
        return `${head} reset-workflow ${callee(d.workflow, d.target)}${d.cd ? ` in ${d.cd}` : ''}${input(d.input)}`;
      return `${head} reset ${d.target}${d.cd ? ` in ${d.cd}` : ''}${input(d.input)}`;
    case 'call':
    case 'function':
      if (d.workflow)
        return `${head} ${d.kind}-workflow ${callee(d.workflow, d.target)}${d.cd ? ` in ${d.cd}` : ''}, returning to ${d.returnTo}${input(d.input)}`;
      return `${head} ${d.kind} ${d.target}, returning to ${d.returnTo}${input(d.input)}`;
    case 'fork': {
      const workers = event.workers
        .map((w, i) => {
          const workflow = d.workers[i]?.workflow;
          return `${w.id} (${workflow ? `${workflow.spec}: ` : ''}${w.state}${attrs(w.attributes)})`;
        })
        .join(', ');
      if (d.join && workers === '')
        return `${head} join; continues at ${d.next} once its workers end`;
      return `${head} fork ${workers}; ${d.join ? `joins at ${d.next} once they end` : `continues at ${d.next}`}`;
    }
    case 'result':
      return event.to === null
        ? `${head} result: ${preview(d.payload)}`
        : `${head} result to ${event.to}: ${preview(d.payload)}`;
    case 'ask':
      if (d.ask.gate)
        return `${head} cost gate ${d.ask.id}: ${d.ask.gate.kind === 'fork' ? `${d.ask.gate.workers} worker(s) forecast at ${usd(d.ask.gate.forecast_usd)}` : `forecast at ${usd(d.ask.gate.forecast_usd)}`} (p90) would pass --confirm-over ${usd(d.ask.gate.amount_usd)}`;
      return `${head} ask ${d.ask?.id ?? ''}: ${preview(d.prompt)} (the answer goes to ${d.next}${d.ask?.timeout_at ? `; after ${d.ask.timeout_at}, ${d.timeoutNext ?? 'the agent fails'}` : ''})`;
    default:
      return exhaustive(d);
  }
}

/** What the short activity column of the live view says a step did: `goto X`, `fork`, `result`. */
export function shortStep(event: Extract<RunEvent, { type: 'step.done' }>): string {
  const d = event.decision;
  if (d.kind === 'fork' && d.join) return d.workers.length > 0 ? 'fork, join' : 'join';
  if (d.kind === 'fork' || d.kind === 'result' || d.kind === 'ask') return d.kind;
  const workflow = d.kind === 'goto' ? undefined : d.workflow;
  return workflow ? `${d.kind}-workflow ${workflow.spec}` : `${d.kind} ${d.target}`;
}

/**
 * The line an event is shown as on a terminal, or undefined for events shown
 * only another way. `verbose` adds details and failures' traces.
 */
export function eventLine(
  e: RunEvent,
  verbose: boolean,
): { text: string; warning?: boolean } | undefined {
  switch (e.type) {
    case 'step.started':
      return { text: `[${e.agentId}] running ${stateLabel(e.state, e.scope)}` };
    case 'step.done':
      return { text: describeStep(e) };
    case 'print':
      return { text: `[${e.agentId}] ${e.text}` };
    case 'permission.denied':
      return { text: `[${e.agentId}] denied: ${e.shown}`, warning: true };
    case 'warning':
      return { text: `warning: ${e.text}`, warning: true };
    case 'width.changed':
      // A change per round of successes is noise on a terminal: the refusals and the park are news.
      return e.why === 'recovering' && !verbose
        ? undefined
        : { text: widthText(e), warning: e.why !== 'recovering' && e.why !== 'paced' };
    case 'agent.paused':
      return { text: `warning: [${e.agentId}] paused: ${failureText(e.failure)}`, warning: true };
    case 'agent.joined':
      return { text: `[${e.agentId}] joined ${e.workers} worker(s); continues at ${e.state}` };
    case 'agent.failed':
      if (e.worker)
        return {
          text: `warning: [${e.agentId}] failed in ${e.state}: ${verbose ? (e.failure.detail ?? failureText(e.failure)) : failureText(e.failure)} (the other agents go on)`,
          warning: true,
        };
      return verbose
        ? {
            text: `[${e.agentId}] ${e.state} failed: ${e.failure.detail ?? failureText(e.failure)}`,
          }
        : undefined;
    case 'detail':
      return verbose ? { text: e.text } : undefined;
    case 'ask.answered':
      return {
        text: e.expired
          ? `[${e.agentId}] ${e.askId} ran out of time without an answer`
          : `[${e.agentId}] ${e.askId} answered`,
      };
    default:
      return undefined;
  }
}
