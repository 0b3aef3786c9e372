import { RaymondError, type ErrorCode } from '../errors.js';
import { proxiedFetch } from '../proxied-fetch.js';

/** Limits of one download. */
export interface DownloadLimits {
  /** Most bytes the body may hold; a longer one is abandoned as soon as it passes this. */
  maxBytes: number;
  /** Milliseconds the whole download (answer and body) may take. */
  timeoutMs: number;
}

/** System and undici error codes of a network that may work again later. */
const TRANSIENT_CAUSE =
  /^(ECONNREFUSED|ECONNRESET|ECONNABORTED|ETIMEDOUT|EAI_AGAIN|EHOSTUNREACH|EHOSTDOWN|ENETUNREACH|ENETDOWN|EPIPE|UND_ERR_\w+)$/;

/** Answers that say "later": a timeout, too many requests, a server error. */
function transientStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * Downloads `url` (http or https, redirects followed, through the proxy the
 * environment names) into memory. A non-2xx answer, a connection error,
 * the timeout, or a body over the cap throws about `url`, in one line;
 * nothing is written anywhere. What may pass by itself (a refused
 * connection, the timeout, a 5xx or 429 answer) is ERR_UNREACHABLE, the
 * rest (a 404, a bad address, a body too big) ERR_DOWNLOAD.
 */
export async function downloadBytes(url: string, limits: DownloadLimits): Promise<Buffer> {
  const fail = (message: string, code: ErrorCode = 'ERR_DOWNLOAD'): never => {
    throw new RaymondError(code, message, { file: url });
  };
  const tooBig = () =>
    fail(
      `the download is larger than ${describeBytes(limits.maxBytes)}, the most Raymond fetches; refusing it`,
    );
  const signal = AbortSignal.timeout(limits.timeoutMs);
  try {
    const res = await proxiedFetch(url, { signal, redirect: 'follow' });
    if (!res.ok) {
      await res.body?.cancel();
      fail(
        `download failed: the server answered ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`,
        transientStatus(res.status) ? 'ERR_UNREACHABLE' : 'ERR_DOWNLOAD',
      );
    }
    if (Number(res.headers.get('content-length') ?? 0) > limits.maxBytes) {
      await res.body?.cancel();
      tooBig();
    }
    const chunks: Buffer[] = [];
    let total = 0;
    // Leaving the loop by a throw cancels the body, so a server streaming on is cut off at the cap.
    for await (const chunk of (res.body ?? []) as AsyncIterable<Uint8Array>) {
      total += chunk.length;
      if (total > limits.maxBytes) tooBig();
      chunks.push(Buffer.from(chunk));
    }
    return Buffer.concat(chunks);
  } catch (err) {
    if (err instanceof RaymondError) throw err;
    if (signal.aborted)
      fail(
        `download failed: no complete answer within ${limits.timeoutMs / 1000} s`,
        'ERR_UNREACHABLE',
      );
    const reason = networkReason(err);
    return fail(
      `download failed: ${reason}`,
      TRANSIENT_CAUSE.test(reason) ? 'ERR_UNREACHABLE' : 'ERR_DOWNLOAD',
    );
  }
}

/** What went wrong under fetch's generic "fetch failed": the system's error code when there is one. */
function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return err instanceof Error ? err.message : String(err);
}

function describeBytes(bytes: number): string {
  return bytes % 2 ** 20 === 0 ? `${bytes / 2 ** 20} MiB` : `${bytes} bytes`;
}
