import type { AnyActorRef } from 'xstate';
import type { AgentRecord } from './types.js';

/**
 * Where the supervisor keeps the frames waiting for something only it can
 * give: an answer to an `<ask>`, or the end of a `<join>`'s workers. A frame
 * says it waits after the step that made it wait is recorded, so what it
 * waits for may come first; it is then kept until the frame is there.
 */
export interface FrameWaiters {
  frames: Map<string, AnyActorRef>;
  early: Map<string, AgentRecord>;
}

export function createFrameWaiters(): FrameWaiters {
  return { frames: new Map(), early: new Map() };
}

/** A frame of agent `agentId` waits: the record to hand it at once, if what it waits for came first. */
export function frameWaits(
  w: FrameWaiters,
  agentId: string,
  ref: AnyActorRef,
): AgentRecord | undefined {
  const early = w.early.get(agentId);
  if (early) w.early.delete(agentId);
  else w.frames.set(agentId, ref);
  return early;
}

/** The frame to hand an agent's new record to, or undefined when the record is kept until its frame waits. */
export function frameFor(w: FrameWaiters, record: AgentRecord): AnyActorRef | undefined {
  const ref = w.frames.get(record.id);
  if (ref) w.frames.delete(record.id);
  else w.early.set(record.id, record);
  return ref;
}
