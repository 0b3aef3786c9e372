import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Static, TSchema } from '@sinclair/typebox';
import { RaymondError, errorMessage } from '../errors.js';
import type { Checked } from '../schema-problem.js';
import { signedJob, type SignedJob } from './queue-schemas.js';

export type { SignedJob } from './queue-schemas.js';

/** Shortest secret accepted: a guessable secret would let anyone with Redis access run commands on the workers. */
const MIN_SECRET_CHARS = 16;

function mac(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('hex');
}

/** Signs a job's payload with the shared secret. */
export function signJob(secret: string, payload: unknown): SignedJob {
  const text = JSON.stringify(payload);
  return { payload: text, sig: mac(secret, text) };
}

/**
 * The MAC of a fixed text: what a process shows of its secret, so that two
 * processes can tell whether they share one without either revealing it.
 */
export function secretCheck(secret: string): string {
  return mac(secret, 'raymond queue secret check v1');
}

/**
 * The payload of a job (or a result) whose signature is right, not yet
 * checked for its shape; undefined for a forged or altered one.
 */
export function signedPayload(secret: string, data: unknown): { payload: unknown } | undefined {
  if (!signedJob.check(data)) return undefined;
  const want = Buffer.from(mac(secret, data.payload), 'hex');
  const got = Buffer.from(data.sig, 'hex');
  if (got.length !== want.length || !timingSafeEqual(got, want)) return undefined;
  try {
    return { payload: JSON.parse(data.payload) };
  } catch {
    // Signed but no JSON: the secret check's text (secretCheck), never a job.
    return undefined;
  }
}

/**
 * The payload of a job (or a result) whose signature is right and which fits
 * `schema`; undefined for a forged or altered one, or one of another shape
 * (a worker or run of another version).
 */
export function verifyJob<S extends TSchema>(
  secret: string,
  data: unknown,
  schema: Checked<S>,
): Static<S> | undefined {
  const signed = signedPayload(secret, data);
  return signed && schema.check(signed.payload) ? signed.payload : undefined;
}

/**
 * The queue's shared secret: `--queue-secret-file`, else RAYMOND_QUEUE_SECRET.
 * Both the coordinator and the workers need the same one.
 */
export function loadQueueSecret(
  file: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string {
  let secret: string | undefined;
  if (file !== undefined) {
    try {
      secret = readFileSync(file, 'utf8').trim();
    } catch (err) {
      throw new RaymondError(
        'ERR_QUEUE_SECRET',
        `cannot read the queue secret: ${errorMessage(err)}`,
        { file },
      );
    }
  } else {
    secret = env.RAYMOND_QUEUE_SECRET?.trim();
    if (!secret)
      throw new RaymondError(
        'ERR_QUEUE_SECRET',
        'a queue needs a shared secret: set RAYMOND_QUEUE_SECRET (or --queue-secret-file FILE) to the same value for the run and its workers, e.g. the output of `openssl rand -hex 32`',
      );
  }
  if (secret.length < MIN_SECRET_CHARS) {
    throw new RaymondError(
      'ERR_QUEUE_SECRET',
      `the queue secret is ${secret.length} characters long; at least ${MIN_SECRET_CHARS} are needed`,
      file ? { file } : {},
    );
  }
  return secret;
}
