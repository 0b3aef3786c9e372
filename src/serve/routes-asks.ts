import type { IncomingMessage } from 'node:http';
import { affordanceOf, capsOf, type FileAffordance } from './ask-affordance.js';
import { serveAskFile } from './ask-files.js';
import { askIdOf, commitAnswer, pendingAsk } from './ask-answer.js';
import { checkSlots, readSubmission, type UploadSubmission } from './ask-uploads.js';
import { HttpError, sendJson } from './http-error.js';
import { answerAskBody, readRequestBody } from './request-schemas.js';
import { pendingAskJson } from './run-json.js';
import { runOf } from './routes-runs.js';
import type { Handler } from './serve-context.js';

/** `GET /runs/{id}/pending-asks`: the run's asks waiting for an answer, oldest first, with their file affordances and staged files. */
export const pendingAsks: Handler = async (ctx, _req, res, p) => {
  const run = runOf(ctx, p.id!);
  const asks = [...run.asks.values()].sort((a, b) => a.created_at.localeCompare(b.created_at));
  sendJson(
    res,
    200,
    await Promise.all(
      asks.map(async (a) => pendingAskJson(run.id, a, await ctx.staging.pending(run, a.id))),
    ),
  );
};

/** What an answer sent as JSON holds: its text, and no file, so an ask with upload slots refuses it as it would a multipart answer without them. */
async function jsonSubmission(
  req: IncomingMessage,
  affordance: FileAffordance | undefined,
): Promise<UploadSubmission> {
  const body = await readRequestBody(req, answerAskBody);
  checkSlots(affordance, []);
  return { response: body.response ?? '', files: [] };
}

/**
 * `POST /runs/{id}/asks/{ask_id}`: answers a pending ask, with
 * `{"response": "..."}` or a multipart body (`response` and files). The
 * files are in the ask's folder before the answer reaches the run, so the
 * answered state reads them from `{{task_folder}}/asks/{{ask_id}}/`. An ask
 * not pending (answered, timed out, unknown) is a 404 `input_not_pending`.
 * Of answers racing each other, exactly one commits: each is read and
 * checked apart (in memory), then the first to claim the ask stores its
 * files and answers; the others are refused having written nothing.
 */
export const answerAsk: Handler = async (ctx, req, res, p) => {
  const run = runOf(ctx, p.id!);
  const askId = askIdOf(p.ask_id!);
  const ask = pendingAsk(run, askId);
  const affordance = affordanceOf(ask.files);
  const multipart = /^multipart\/form-data/i.test(req.headers['content-type'] ?? '');
  const staged = multipart ? await ctx.staging.pending(run, askId) : undefined;
  const submission = multipart
    ? await readSubmission(req, affordance, capsOf(affordance, ctx.uploadCaps), staged?.files ?? [])
    : await jsonSubmission(req, affordance);
  await commitAnswer(run, ask, submission, ctx.staging);
  sendJson(res, 200, { run_id: run.id, ask_id: askId, status: 'resumed' });
};

/** `GET /runs/{id}/asks/{ask_id}/files`: the ask's staged and uploaded files. */
export const listAskFiles: Handler = async (ctx, _req, res, p) => {
  const run = runOf(ctx, p.id!);
  const found = await ctx.staging.find(run, askIdOf(p.ask_id!));
  if (!found)
    throw new HttpError(404, 'ask_not_found', `no files for ask "${p.ask_id}" in run "${run.id}"`);
  sendJson(res, 200, found.files);
};

/** `GET /runs/{id}/asks/{ask_id}/files/{path}`: one of them (`?disposition=inline` for images and PDFs). */
export const getAskFile: Handler = async (ctx, _req, res, p, url) => {
  const run = runOf(ctx, p.id!);
  const found = await ctx.staging.find(run, askIdOf(p.ask_id!));
  if (!found)
    throw new HttpError(404, 'ask_not_found', `no files for ask "${p.ask_id}" in run "${run.id}"`);
  await serveAskFile(
    res,
    found.dir,
    found.files,
    p.path!,
    url.searchParams.get('disposition') === 'inline',
  );
};
