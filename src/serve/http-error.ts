import type { IncomingMessage, ServerResponse } from 'node:http';
import { RaymondError, errorMessage } from '../errors.js';

/**
 * A request the server refuses: an HTTP status, a stable `reason` (the
 * `code` of the JSON body, which clients may match on) and a message for
 * people. `extra` adds fields to the body (`constraint` for uploads, as
 * `ray serve` names the rule an upload broke).
 */
export class HttpError extends RaymondError {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super('ERR_HTTP', message, { details: { status, reason } });
  }
}

/** Writes a JSON answer. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

/**
 * Writes a refusal as `ray serve` shapes it, `{"error": "<message>"}`, with
 * Raymond's stable `code` beside it. Anything that is not an HttpError is
 * our own failure: a 500 with its message, never a stack trace.
 */
export function sendError(res: ServerResponse, err: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (err instanceof HttpError) {
    sendJson(res, err.status, { error: err.message, code: err.reason, ...err.extra });
    return;
  }
  sendJson(res, 500, { error: errorMessage(err), code: 'internal' });
}

/** Most bytes a JSON request body may hold. */
export const MAX_JSON_BODY = 1 << 20;

/** Reads a request's body, refusing it (413 `body_too_large`) past `limit` bytes without reading on. */
export async function readBody(
  req: IncomingMessage,
  limit: number,
  reason = 'body_too_large',
): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  const tooLarge = () =>
    new HttpError(
      413,
      reason,
      `the request body is larger than ${limit} bytes, the most this endpoint takes`,
      reason === 'body_too_large' ? {} : { constraint: reason },
    );
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Reads a JSON object body (at most MAX_JSON_BODY bytes); anything else is a 400 `invalid_json`. */
export async function readJsonObject(req: IncomingMessage): Promise<Record<string, unknown>> {
  const text = (await readBody(req, MAX_JSON_BODY)).toString('utf8');
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch (err) {
    throw new HttpError(400, 'invalid_json', `invalid JSON body: ${errorMessage(err)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new HttpError(400, 'invalid_json', 'invalid JSON body: expected an object');
  return value as Record<string, unknown>;
}
