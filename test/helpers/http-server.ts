import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A small HTTP server on 127.0.0.1 (a free port) that records every request path. */
export interface TestServer {
  /** `http://127.0.0.1:PORT`, without a trailing slash. */
  readonly url: string;
  /** The path of every request, in order. */
  readonly requests: string[];
  /** Stops listening and drops open connections (a hanging answer included). */
  close(): Promise<void>;
}

/** Starts a server answering with `handler`; a handler may also never answer. */
export async function startServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<TestServer> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Streams `bytes` zero bytes as a chunked body (no length announced), minding back-pressure. */
export function streamZeros(res: ServerResponse, bytes: number): void {
  const chunk = Buffer.alloc(2 ** 20);
  let left = bytes;
  const write = (): void => {
    while (left > 0) {
      const part = chunk.subarray(0, Math.min(left, chunk.length));
      left -= part.length;
      if (!res.write(part)) {
        res.once('drain', write);
        return;
      }
    }
    res.end();
  };
  res.on('error', () => {});
  write();
}
