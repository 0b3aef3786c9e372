import type { Job } from 'bullmq';
import type { RunEvent } from '../../machines/run-events.js';
import { signJob } from './job-signing.js';
import type { SignedProgressPayload, StepJob } from './step-job.js';

/**
 * The worker's own events a coordinator shows: what the agent said,
 * warnings, and the account width's changes this worker's turns made (the
 * width is the account's, shared by every worker: worker-widths.ts).
 */
const FORWARDED = new Set<RunEvent['type']>([
  'print',
  'warning',
  'detail',
  'permission.denied',
  'width.changed',
]);

/** How often a running job's events are sent to its coordinator. */
const FLUSH_MS = 250;

/**
 * Sends a running job's events to its coordinator as the job's progress, in
 * batches, each signed for the job; `close` sends the last batch and waits
 * for every one (before the result, which the coordinator reads after).
 */
export function jobProgress(
  secret: string,
  job: Pick<StepJob, 'id' | 'nonce'>,
  bull: Job,
): { forward: (e: RunEvent) => void; close: () => Promise<void> } {
  const events: RunEvent[] = [];
  let flushing: Promise<unknown> = Promise.resolve();
  const flush = () => {
    if (events.length === 0) return;
    const signed = signJob(secret, {
      for: 'progress',
      id: job.id,
      nonce: job.nonce,
      events: events.splice(0),
    } satisfies SignedProgressPayload);
    flushing = flushing.then(() => bull.updateProgress(signed).catch(() => undefined));
  };
  const timer = setInterval(flush, FLUSH_MS);
  return {
    forward(e) {
      if (FORWARDED.has(e.type)) events.push(e);
    },
    async close() {
      clearInterval(timer);
      flush();
      await flushing;
    },
  };
}
