import { dirname, join } from 'node:path';
import type { RunEventSink } from '../../machines/run-events.js';
import type { StateExecutor } from '../executors/executor.js';
import type { QueueSettings, RunSettings } from '../settings/run-settings.js';
import { projectRootOf } from '../task-folder-pattern.js';
import type { WorktreePool } from '../worktrees/worktree-pool.js';
import { loadQueueSecret } from '../queue/job-signing.js';
import { parseQueueUrl } from '../queue/queue-url.js';
import { createRemoteExecutors } from '../queue/remote-executors.js';
import { StepQueue } from '../queue/step-queue.js';

/** What a queued run uses instead of running its steps here. */
export interface QueuedRun {
  script: StateExecutor;
  markdown: StateExecutor;
  worktrees: WorktreePool;
  close(): Promise<void>;
}

/**
 * Connects a run to its queue (`--queue`): the coordinator's executors and
 * worktree pool, which send each step to the workers. Redis outages are
 * told in one line each way, and the run waits through them. compose-run
 * loads this module only for a queued run: BullMQ and ioredis are most of
 * the bundle's code, and a run on one machine need not parse or hold them.
 */
export async function openQueue(options: {
  queue: QueueSettings;
  settings: RunSettings;
  workflowId: string;
  stateFile: string;
  emit: RunEventSink;
}): Promise<QueuedRun> {
  const target = parseQueueUrl(options.queue.url);
  const secret = loadQueueSecret(options.queue.secretFile);
  const queue = await StepQueue.open(target, secret, (text) =>
    options.emit({ type: 'warning', text }),
  );
  options.emit({ type: 'detail', text: `queue: steps go to the workers at ${target.shown}` });
  const remote = createRemoteExecutors({
    queue,
    workflowId: options.workflowId,
    root: projectRootOf(options.stateFile),
    transcripts: join(dirname(dirname(options.stateFile)), 'transcripts', options.workflowId),
    env: { ...options.settings.environment },
    turns: {
      skipPermissions: options.settings.skipPermissions,
      settings: options.settings.backendSettings ?? {},
      prices: options.settings.prices,
      // --no-adaptive-width: the workers start turns with no account width.
      ...(options.settings.adaptiveWidth !== false && { maxTurns: options.settings.maxParallel }),
    },
    pushRemote: options.queue.pushRemote,
    emit: options.emit,
  });
  return { ...remote, close: () => queue.close() };
}
