import { RaymondError } from '../errors.js';

/** Limits of one download. */
export interface DownloadLimits {
  /** Most bytes the body may hold; a longer one is abandoned as soon as it passes this. */
  maxBytes: number;
  /** Milliseconds the whole download (answer and body) may take. */
  timeoutMs: number;
}

/**
 * Downloads `url` (http or https, redirects followed) into memory. A
 * non-2xx answer, a connection error, the timeout, or a body over the cap
 * throws ERR_DOWNLOAD about `url`, in one line; nothing is written anywhere.
 */
export async function downloadBytes(url: string, limits: DownloadLimits): Promise<Buffer> {
  const fail = (message: string): never => {
    throw new RaymondError('ERR_DOWNLOAD', message, { file: url });
  };
  const tooBig = () => fail(`the download is larger than ${describeBytes(limits.maxBytes)}, the most Raymond fetches; refusing it`);
  const signal = AbortSignal.timeout(limits.timeoutMs);
  try {
    const res = await fetch(url, { signal, redirect: 'follow' });
    if (!res.ok) {
      await res.body?.cancel();
      fail(`download failed: the server answered ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`);
    }
    if (Number(res.headers.get('content-length') ?? 0) > limits.maxBytes) {
      await res.body?.cancel();
      tooBig();
    }
    const chunks: Buffer[] = [];
    let total = 0;
    // Leaving the loop by a throw cancels the body, so a server streaming on is cut off at the cap.
    for await (const chunk of res.body ?? []) {
      total += chunk.length;
      if (total > limits.maxBytes) tooBig();
      chunks.push(Buffer.from(chunk));
    }
    return Buffer.concat(chunks);
  } catch (err) {
    if (err instanceof RaymondError) throw err;
    if (signal.aborted) fail(`download failed: no complete answer within ${limits.timeoutMs / 1000} s`);
    return fail(`download failed: ${networkReason(err)}`);
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
