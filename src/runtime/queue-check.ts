import { loadQueueSecret } from '../queue/job-signing.js';
import { parseQueueUrl } from '../queue/queue-url.js';
import type { QueueSettings } from '../settings/run-settings.js';

/*
 * Apart from queued-run.ts, which compose-run imports only for a queued run:
 * the preflight runs for every run, and must not load BullMQ and ioredis.
 */

/** Checks a queue's URL and secret before a run writes anything: a mistake is one line, and no state file. */
export function checkQueue(queue: QueueSettings): void {
  parseQueueUrl(queue.url);
  loadQueueSecret(queue.secretFile);
}
