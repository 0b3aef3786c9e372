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

/** What a running job tells its coordinator. */
export interface JobProgress {
  /** One of the job's events: those the coordinator shows go in the next batch. */
  forward: (e: RunEvent) => void;
  /** The running turn's streamed cost so far: sent at once, since the coordinator's budget may stop the turn on it. */
  spent: (costUsd: number) => void;
  /** Sends the last batch and waits for every one. */
  close: () => Promise<void>;
}

/**
 * Sends a running job's events to its coordinator as the job's progress, in
 * batches, each signed for the job; `close` sends the last batch and waits
 * for every one (before the result, which the coordinator reads after).
 */
export function jobProgress(
  secret: string,
  job: Pick<StepJob, 'id' | 'nonce'>,
  bull: Job,
): JobProgress {
  const events: RunEvent[] = [];
  let spentUsd: number | undefined;
  let flushing: Promise<unknown> = Promise.resolve();
  const flush = () => {
    if (events.length === 0 && spentUsd === undefined) return;
    const signed = signJob(secret, {
      for: 'progress',
      id: job.id,
      nonce: job.nonce,
      events: events.splice(0),
      ...(spentUsd !== undefined && { spentUsd }),
    } satisfies SignedProgressPayload);
    spentUsd = undefined;
    flushing = flushing.then(() => bull.updateProgress(signed).catch(() => undefined));
  };
  const timer = setInterval(flush, FLUSH_MS);
  return {
    forward(e) {
      if (FORWARDED.has(e.type)) events.push(e);
    },
    spent(costUsd) {
      spentUsd = costUsd;
      flush();
    },
    async close() {
      clearInterval(timer);
      flush();
      await flushing;
    },
  };
}
