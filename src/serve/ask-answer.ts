import type { AgentAsk } from '../../machines/types.js';
import type { AskStaging } from './ask-staging.js';
import { storeUploads, type UploadSubmission } from './ask-uploads.js';
import { HttpError } from './http-error.js';
import type { ServedRun } from './served-run.js';

/** An ask id as Raymond makes them (`ask_<agent>_<ms>`): anything else cannot be one, and never reaches a path. */
export function askIdOf(raw: string): string {
  if (!/^[A-Za-z0-9_-]{1,300}$/.test(raw))
    throw new HttpError(404, 'ask_not_found', `no ask "${raw}"`);
  return raw;
}

/** The 404 `input_not_pending` of an ask that is not (or no longer) waiting. */
export function notPending(run: ServedRun, askId: string): HttpError {
  return new HttpError(
    404,
    'input_not_pending',
    `ask "${askId}" is not pending in run "${run.id}"`,
    { constraint: 'input_not_pending' },
  );
}

/** The pending ask `askId` of a run that can take an answer, or `input_not_pending`. */
export function pendingAsk(run: ServedRun, askId: string): AgentAsk {
  const ask = run.asks.get(askId);
  if (!ask || !run.control) throw notPending(run, askId);
  return ask;
}

/**
 * Commits a checked answer to `ask` (read from `pendingAsk` before the
 * submission was read): of answers racing each other, exactly one does.
 * The claim is checked and taken with no await between, so no other answer
 * passes it; the files are in the ask's folder before the answer reaches the
 * run, so the answered state reads them from `{{task_folder}}/asks/<id>/`.
 */
export async function commitAnswer(
  run: ServedRun,
  ask: AgentAsk,
  submission: UploadSubmission,
  staging: AskStaging,
): Promise<void> {
  if (run.asks.get(ask.id) !== ask || run.answering.has(ask.id)) throw notPending(run, ask.id);
  run.answering.add(ask.id);
  try {
    if (submission.files.length > 0) {
      const dir = (await staging.pending(run, ask.id))?.dir;
      if (!dir) throw new HttpError(500, 'ask_folder', `ask "${ask.id}" has no folder for files`);
      await storeUploads(dir, submission.files);
    }
    // Timed out while the files were stored: the run went on without them.
    if (!run.asks.has(ask.id)) throw notPending(run, ask.id);
    run.asks.delete(ask.id);
    run.control!.answer(ask.id, submission.response);
  } finally {
    run.answering.delete(ask.id);
  }
}
