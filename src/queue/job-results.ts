import { Job, type Queue } from 'bullmq';
import { RaymondError } from '../errors.js';
import { verifyJob } from './job-signing.js';
import { signedResult, stepJobEnvelope } from './queue-schemas.js';
import type { StepJob, StepJobResult } from './step-job.js';

/**
 * Reading a step job and its result back from Redis, checked with the queue's secret, and the
 * errors a job settles with when it failed or was forged. Apart from step-queue.ts so that the
 * queue's bookkeeping (adding, polling, cancelling) reads on its own.
 */

/** What a job's signed data or returned value says, once checked with the secret. */
export type Opened = { kind: 'result'; result: StepJobResult; nonce: string } | { kind: 'forged' };

/** A job's state as lookUpJob reads it, with the job and what its data and result say. */
export interface JobLookup {
  state: string;
  job?: Job;
  result?: StepJobResult;
  reason?: string;
  nonce?: string;
}

/** A value BullMQ handed over as JSON text (or already parsed); undefined if it is not JSON. */
export function json(value: unknown): unknown {
  try {
    return typeof value === 'string' ? JSON.parse(value) : value;
  } catch {
    return undefined;
  }
}

/** The error a failed job settles with: a worker's refusal, or the step's own failure. */
export function failure(reason: string | undefined, where: string): RaymondError {
  const text = reason ?? 'failed';
  if (text.startsWith('refused:'))
    return new RaymondError('ERR_QUEUE_REFUSED', `a worker ${text}`, { file: where });
  return new RaymondError('ERR_QUEUE', `the queued step failed on its worker: ${text}`, {
    file: where,
  });
}

/** The error a result nobody with the secret signed settles with. */
export function forgedResult(where: string): RaymondError {
  return new RaymondError(
    'ERR_QUEUE_REFUSED',
    "the step's result is not signed with the queue's secret for this job (something with access to Redis but not the secret answered it): refused, and nothing of it was taken",
    { file: where },
  );
}

/** A job's data, if this secret signed it: its nonce and expiry. */
export function openJob(secret: string, data: unknown): StepJob | undefined {
  // The envelope is checked; the rest is this coordinator's own data, signed whole.
  return verifyJob(secret, data, stepJobEnvelope) as StepJob | undefined;
}

/** A returned value, if a worker signed it with the secret for this job. */
export function openResult(secret: string, value: unknown, id: string): Opened {
  const signed = verifyJob(secret, json(value), signedResult);
  if (!signed || signed.id !== id) return { kind: 'forged' };
  return { kind: 'result', result: signed.result, nonce: signed.nonce };
}

/**
 * A job's state, then the job: in that order, since BullMQ stores the
 * result and marks the job completed at once, a job read first could
 * predate its own result. A completed job without a result yet counts as
 * still running. A job whose data this secret did not sign, or whose
 * result answers neither its nonce nor one of `nonces`, is `forged`.
 * A job still waiting or running is read only if `whole` asks for it.
 */
export async function lookUpJob(
  queue: Queue,
  secret: string,
  id: string,
  nonces: ReadonlySet<string>,
  whole: boolean,
): Promise<JobLookup> {
  const state = await queue.getJobState(id);
  if (state === 'unknown' || (!whole && state !== 'completed' && state !== 'failed'))
    return { state };
  const job = await Job.fromId<unknown, unknown>(queue, id);
  if (!job) return { state: 'unknown' };
  const mine = openJob(secret, job.data);
  if (!mine) return { state: 'forged', job };
  if (state === 'failed') return { state, job, reason: job.failedReason, nonce: mine.nonce };
  const value: unknown = job.returnvalue;
  if (state !== 'completed' || value === null || value === undefined)
    return { state: state === 'completed' ? 'active' : state, job, nonce: mine.nonce };
  const r = openResult(secret, value, id);
  if (r.kind === 'forged' || (r.nonce !== mine.nonce && !nonces.has(r.nonce)))
    return { state: 'forged', job };
  return { state, job, result: r.result, nonce: mine.nonce };
}
