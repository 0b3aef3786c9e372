import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import type { QueueTarget } from './queue-url.js';
import { closeRedis, openRedis } from './redis-link.js';
import { KEY_PREFIX, QUEUE_NAMES } from './step-job.js';

/** One of the queues (step-job.ts QUEUE_NAMES) as a coordinator uses it: its jobs, and the events that announce them. */
export interface Lane {
  queue: Queue;
  events: QueueEvents;
  /** The events' own connection: QueueEvents blocks it reading the stream. */
  eventsRedis: Redis;
}

/** Opens every queue on `redis`, each queue's events on a connection of their own, by queue name. */
export async function openLanes(target: QueueTarget, redis: Redis): Promise<Map<string, Lane>> {
  const lanes = new Map<string, Lane>();
  for (const name of QUEUE_NAMES) {
    const eventsRedis = openRedis(target, () => undefined, `raymond-events-${name}`);
    const events = new QueueEvents(name, { connection: eventsRedis, prefix: KEY_PREFIX });
    const queue = new Queue(name, { connection: redis, prefix: KEY_PREFIX });
    queue.on('error', () => undefined);
    events.on('error', () => undefined);
    lanes.set(name, { queue, events, eventsRedis });
  }
  await Promise.all([...lanes.values()].map((l) => l.events.waitUntilReady()));
  return lanes;
}

/** Closes what openLanes opened (the shared connection is the caller's). */
export async function closeLanes(lanes: ReadonlyMap<string, Lane>): Promise<void> {
  for (const l of lanes.values()) {
    await l.events.close().catch(() => undefined);
    await l.queue.close().catch(() => undefined);
  }
  await closeRedis(...[...lanes.values()].map((l) => l.eventsRedis));
}
