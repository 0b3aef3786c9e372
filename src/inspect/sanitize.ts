import { stackDepth } from '../../machines/frame-stack.js';
import type { RunEvent } from '../../machines/run-events.js';
import type { SupervisorContext } from '../../machines/supervisor.machine.js';
import { waitingCount } from '../../machines/scheduler.js';
import type { AgentRecord, Decision } from '../../machines/types.js';
import { errorMessage } from '../errors.js';
import { exhaustive } from '../../machines/exhaustive.js';

/**
 * What the inspector may see of the run. Prompts, inputs, results and fork
 * attributes are the user's data and may be secret: unless `--inspect-full`
 * is given, contexts, events and outputs are reduced to ids, states, counts
 * and costs. Contexts are turned into plain JSON either way, because the
 * supervisor's store holds Maps (which serialize as `{}`) and can be large.
 */

type Plain = Record<string, unknown>;

function isObject(x: unknown): x is Plain {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Tag and target of a decision, never its payload or input. */
export function summarizeDecision(d: Decision): Plain {
  switch (d.kind) {
    case 'fork':
      return {
        tag: d.join ? 'join' : 'fork',
        next: d.next,
        workers: d.workers.map((w) => w.target),
      };
    case 'result':
      return { tag: 'result' };
    case 'ask':
      // The question may hold anything the model wrote: like a payload, it stays out.
      return {
        tag: 'ask',
        next: d.next,
        ...(d.timeoutNext ? { timeout_next: d.timeoutNext } : {}),
      };
    case 'call':
    case 'function':
      return { tag: d.kind, target: d.target, return: d.returnTo };
    case 'goto':
    case 'reset':
      return { tag: d.kind, target: d.target };
    default:
      return exhaustive(d);
  }
}

/** A return stack is shown as its depth and top frame: all of it would cost its depth on every snapshot. */
function summarizeRecord(r: AgentRecord): Plain {
  return {
    agent: r.id,
    state: r.state,
    status: r.status,
    stack: stackDepth(r.stack),
    returnTo: r.stack?.frame.state ?? null,
    session: r.session,
    cwd: r.cwd,
    ...(r.worktree ? { branch: r.worktree.branch } : {}),
  };
}

function fullRecord(r: AgentRecord): Plain {
  return JSON.parse(
    JSON.stringify({ ...r, stack: { depth: stackDepth(r.stack), top: r.stack?.frame ?? null } }),
  ) as Plain;
}

/** The inspected context of an agent frame or of the supervisor; anything else passes as is, so it may run twice. */
export function sanitizeContext(context: unknown, full: boolean): unknown {
  if (!isObject(context)) return context;
  if (isObject(context.record)) {
    const record = context.record as unknown as AgentRecord;
    return {
      ...(full ? { record: fullRecord(record) } : summarizeRecord(record)),
      depth: context.depth,
    };
  }
  if (isObject(context.work)) {
    const work = context.work as unknown as SupervisorContext['work'];
    const { store, slots } = work;
    const summary: Plain = {
      status: store.meta.status,
      total_cost_usd: store.meta.total_cost_usd,
      agents: store.agents.size,
      running: slots.running,
      queued: waitingCount(slots),
      version: context.version,
      persisted: context.persisted,
    };
    if (full) summary.results = { ...store.meta.results };
    return summary;
  }
  // Already sanitized (or an actor without context of its own).
  return context;
}

/** The inspected output of an actor: a step's result or a frame's end. */
export function sanitizeOutput(output: unknown, full: boolean): unknown {
  if (!isObject(output)) return output;
  if (isObject(output.decision)) {
    const decision = output.decision as unknown as Decision;
    return full
      ? output
      : { ...summarizeDecision(decision), session: output.session, costUsd: output.costUsd };
  }
  if (isObject(output.record) && typeof output.kind === 'string') {
    const record = output.record as unknown as AgentRecord;
    return {
      kind: output.kind,
      ...(full ? { record: fullRecord(record) } : summarizeRecord(record)),
    };
  }
  return full ? output : {};
}

const SAFE_STRINGS = new Set(['type', 'agentId', 'actorId', 'from', 'state', 'outcome']);

/** The inspected form of an event sent to an actor. */
export function sanitizeEvent(event: Plain, full: boolean): Plain {
  const out: Plain = { type: event.type };
  for (const [k, v] of Object.entries(event)) {
    if (
      typeof v === 'number' ||
      typeof v === 'boolean' ||
      (typeof v === 'string' && (full || SAFE_STRINGS.has(k)))
    )
      out[k] = v;
  }
  if (isObject(event.decision))
    out.decision = full ? event.decision : summarizeDecision(event.decision as unknown as Decision);
  if (isObject(event.record))
    out.record = full
      ? fullRecord(event.record as unknown as AgentRecord)
      : summarizeRecord(event.record as unknown as AgentRecord);
  if (Array.isArray(event.spawns)) out.spawns = event.spawns.length;
  if ('output' in event) out.output = sanitizeOutput(event.output, full);
  if ('error' in event) out.error = errorMessage(event.error);
  // A failure's message may quote a script's output: only its code unless --inspect-full.
  if (isObject(event.failure))
    out.failure = full ? event.failure : { code: event.failure.code, pauses: event.failure.pauses };
  return out;
}

/**
 * A run event as the trace may keep it: tags, targets, ids, states, costs and
 * error codes; payloads, inputs, attributes, printed text and messages only
 * with --inspect-full.
 */
export function sanitizeRunEvent(e: RunEvent, full: boolean): Plain {
  if (full) return JSON.parse(JSON.stringify(e)) as Plain;
  switch (e.type) {
    case 'step.done':
      return {
        ...e,
        decision: summarizeDecision(e.decision),
        workers: e.workers.map((w) => ({ id: w.id, state: w.state })),
      };
    case 'agent.forked':
      return { type: e.type, parentId: e.parentId, id: e.id, state: e.state };
    case 'agent.paused':
    case 'agent.failed':
      return {
        type: e.type,
        agentId: e.agentId,
        state: e.state,
        failure: { code: e.failure.code, file: e.failure.file, pauses: e.failure.pauses },
        totalCostUsd: e.totalCostUsd,
      };
    case 'print':
      return { type: e.type, agentId: e.agentId };
    case 'warning':
    case 'detail':
      return { type: e.type };
    case 'run.finished':
      return { ...e, error: e.error === undefined ? undefined : '(kept out; --inspect-full)' };
    default:
      return { ...e };
  }
}
