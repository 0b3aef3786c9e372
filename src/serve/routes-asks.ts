import { affordanceOf, capsOf, serveAskFile } from './ask-files.js';
import { readSubmission, storeUploads } from './ask-uploads.js';
import { HttpError, readJsonObject, sendJson } from './http-error.js';
import { pendingAskJson } from './run-json.js';
import { runOf } from './routes-runs.js';
import type { Handler } from './serve-context.js';

/** An ask id as Raymond makes them (`ask_<agent>_<ms>`): anything else cannot be one, and never reaches a path. */
function askIdOf(raw: string): string {
  if (!/^[A-Za-z0-9_-]{1,300}$/.test(raw)) throw new HttpError(404, 'ask_not_found', `no ask "${raw}"`);
  return raw;
}

/** `GET /runs/{id}/pending-asks`: the run's asks waiting for an answer, oldest first, with their file affordances and staged files. */
export const pendingAsks: Handler = async (ctx, _req, res, p) => {
  const run = runOf(ctx, p.id!);
  const asks = [...run.asks.values()].sort((a, b) => a.created_at.localeCompare(b.created_at));
  sendJson(res, 200, await Promise.all(asks.map(async (a) => pendingAskJson(run.id, a, await ctx.staging.pending(run, a.id)))));
};

/**
 * `POST /runs/{id}/asks/{ask_id}`: answers a pending ask, with
 * `{"response": "..."}` or a multipart body (`response` and files). The
 * files are in the ask's folder before the answer reaches the run, so the
 * answered state reads them from `{{task_folder}}/asks/{{ask_id}}/`. An ask
 * not pending (answered, timed out, unknown) is a 404 `input_not_pending`.
 */
export const answerAsk: Handler = async (ctx, req, res, p) => {
  const run = runOf(ctx, p.id!);
  const askId = askIdOf(p.ask_id!);
  const notPending = () => new HttpError(404, 'input_not_pending', `ask "${askId}" is not pending in run "${run.id}"`, { constraint: 'input_not_pending' });
  const ask = run.asks.get(askId);
  if (!ask || !run.control) throw notPending();
  let response: string;
  if (/^multipart\/form-data/i.test(req.headers['content-type'] ?? '')) {
    const affordance = affordanceOf(ask.files);
    const staged = await ctx.staging.pending(run, askId);
    const submission = await readSubmission(req, affordance, capsOf(affordance, ctx.uploadCaps), staged?.files ?? []);
    // Answered meanwhile by another request: nothing is written.
    if (!run.asks.has(askId)) throw notPending();
    if (submission.files.length > 0) {
      if (!staged?.dir) throw new HttpError(500, 'ask_folder', `ask "${askId}" has no folder for files`);
      await storeUploads(staged.dir, submission.files);
    }
    response = submission.response;
  } else {
    const body = await readJsonObject(req);
    if (body.response !== undefined && typeof body.response !== 'string') throw new HttpError(400, 'bad_request', 'response must be a string');
    response = (body.response as string | undefined) ?? '';
  }
  if (!run.asks.has(askId)) throw notPending();
  // Taken off at once, so a second answer racing this one is refused rather than dropped silently.
  run.asks.delete(askId);
  run.control.answer(askId, response);
  sendJson(res, 200, { run_id: run.id, ask_id: askId, status: 'resumed' });
};

/** `GET /runs/{id}/asks/{ask_id}/files`: the ask's staged and uploaded files. */
export const listAskFiles: Handler = async (ctx, _req, res, p) => {
  const run = runOf(ctx, p.id!);
  const found = await ctx.staging.find(run, askIdOf(p.ask_id!));
  if (!found) throw new HttpError(404, 'ask_not_found', `no files for ask "${p.ask_id}" in run "${run.id}"`);
  sendJson(res, 200, found.files);
};

/** `GET /runs/{id}/asks/{ask_id}/files/{path}`: one of them (`?disposition=inline` for images and PDFs). */
export const getAskFile: Handler = async (ctx, _req, res, p, url) => {
  const run = runOf(ctx, p.id!);
  const found = await ctx.staging.find(run, askIdOf(p.ask_id!));
  if (!found) throw new HttpError(404, 'ask_not_found', `no files for ask "${p.ask_id}" in run "${run.id}"`);
  await serveAskFile(res, found.dir, found.files, p.path!, url.searchParams.get('disposition') === 'inline');
};
