import type { IncomingMessage, ServerResponse } from 'node:http';
import { startServer, type TestServer } from './http-server.js';

/** A hook receiver on 127.0.0.1: every POST's body and content type, in order. */
export interface Receiver extends TestServer {
  readonly bodies: string[];
  readonly types: string[];
  /** Each POST's Authorization header ('' without one). */
  readonly authorizations: string[];
}

/** Starts a receiver; `answer` gives each request's status by its number (1 first), or null to never answer. */
export async function startReceiver(
  answer: (n: number) => number | null = () => 200,
): Promise<Receiver> {
  const bodies: string[] = [];
  const types: string[] = [];
  const authorizations: string[] = [];
  const server = await startServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      types.push(req.headers['content-type'] ?? '');
      authorizations.push(req.headers.authorization ?? '');
      const status = answer(bodies.length);
      if (status !== null) res.writeHead(status).end();
    });
  });
  return Object.assign(server, { bodies, types, authorizations });
}
