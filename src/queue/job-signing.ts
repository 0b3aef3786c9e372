import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { RaymondError, errorMessage } from '../errors.js';

/** What goes into Redis for a job: the payload as JSON text, and its HMAC. */
export interface SignedJob {
  payload: string;
  sig: string;
}

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

/** The payload of a job (or a result) whose signature is right; undefined for a forged or altered one. */
export function verifyJob<T>(secret: string, data: unknown): T | undefined {
  const job = data as Partial<SignedJob> | null;
  if (!job || typeof job.payload !== 'string' || typeof job.sig !== 'string') return undefined;
  const want = Buffer.from(mac(secret, job.payload), 'hex');
  const got = Buffer.from(job.sig, 'hex');
  if (got.length !== want.length || !timingSafeEqual(got, want)) return undefined;
  try {
    return JSON.parse(job.payload) as T;
  } catch {
    // Signed but no JSON: the secret check's text (secretCheck), never a job.
    return undefined;
  }
}

/**
 * The queue's shared secret: `--queue-secret-file`, else RAYMOND_QUEUE_SECRET.
 * Both the coordinator and the workers need the same one.
 */
export function loadQueueSecret(file: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  let secret: string | undefined;
  if (file !== undefined) {
    try {
      secret = readFileSync(file, 'utf8').trim();
    } catch (err) {
      throw new RaymondError('ERR_QUEUE_SECRET', `cannot read the queue secret: ${errorMessage(err)}`, { file });
    }
  } else {
    secret = env.RAYMOND_QUEUE_SECRET?.trim();
    if (!secret) throw new RaymondError('ERR_QUEUE_SECRET', 'a queue needs a shared secret: set RAYMOND_QUEUE_SECRET (or --queue-secret-file FILE) to the same value for the run and its workers, e.g. the output of `openssl rand -hex 32`');
  }
  if (secret.length < MIN_SECRET_CHARS) {
    throw new RaymondError('ERR_QUEUE_SECRET', `the queue secret is ${secret.length} characters long; at least ${MIN_SECRET_CHARS} are needed`, file ? { file } : {});
  }
  return secret;
}
