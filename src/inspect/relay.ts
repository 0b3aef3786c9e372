import { Server, createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { createInspectorServer } from '@statelyai/inspect/server';
import { RaymondError } from '../errors.js';
import { loopbackGuard } from '../web/loopback-guard.js';

/** Path Raymond's own client connects on, to tell it from the browsers. */
const OWN_PATH = '/raymond';

/** What Raymond's client (`@statelyai/inspect`'s WebSocket adapter) exposes at run time. */
export interface RelayClient {
  status: string;
  ws?: { bufferedAmount: number };
}

/** The local relay between Raymond's inspector client and the browser page. */
export interface Relay {
  /** Page to open: it embeds the Stately inspector and feeds it the run's events. */
  url: string;
  /** Where Raymond's inspector client sends the events. */
  wsUrl: string;
  /** Resolves once a viewer is connected: any WebSocket client but Raymond's own. */
  viewer(): Promise<void>;
  /**
   * Resolves once Raymond's client is connected and everything it sent has
   * been passed on to the viewers (giving up after two seconds for each).
   */
  flush(client: RelayClient): Promise<void>;
  stop(): void;
}

/**
 * Starts `@statelyai/inspect`'s WebSocket relay on 127.0.0.1 only. The
 * library listens on every interface and takes no host, so the one
 * `listen` call it makes is bound to loopback here. A taken port is found
 * beforehand: the library's WebSocket server rethrows its listen error as
 * an uncaught one. A handshake whose Host or Origin is not this server is
 * refused with 403 before the library sees it. `routes` answers the requests it knows (the live
 * page); the library's page answers the rest.
 */
export async function startRelay(
  port: number,
  option: { name: string; choose: string },
  routes?: (req: IncomingMessage, res: ServerResponse) => boolean,
): Promise<Relay> {
  await checkPort(port, option);
  const listen = Server.prototype.listen;
  let server: Server | undefined;
  Server.prototype.listen = function (this: Server, ...args: unknown[]) {
    // The patched listen records which server the library made: it is called as that server's method.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    server = this;
    const cb = args.find((a) => typeof a === 'function');
    return (listen as (...a: unknown[]) => Server).call(this, args[0], '127.0.0.1', cb);
  } as typeof listen;
  let relay: { stop(): void };
  try {
    relay = createInspectorServer({ port, autoOpen: false });
  } finally {
    Server.prototype.listen = listen;
  }
  const http = server!;
  if (!http.listening) await new Promise((resolve) => http.once('listening', resolve));
  if (routes) {
    // The library answers every request with its page: other routes go first.
    const [page] = http.listeners('request') as Array<
      (req: IncomingMessage, res: ServerResponse) => void
    >;
    http.removeAllListeners('request');
    http.on(
      'request',
      (req: IncomingMessage, res: ServerResponse) => routes(req, res) || page?.(req, res),
    );
  }
  // Upgraded sockets leave the HTTP server's books, and the library's close keeps them open.
  // Raymond's own client connects on OWN_PATH; every other client is a viewer.
  const sockets = new Map<Duplex, boolean>();
  const upgraded = new Set<() => void>();
  // The library's WebSocket server upgrades any handshake: a page of another site (its Origin) or
  // one reached through DNS rebinding (its Host) would read the run. Those are refused first.
  const guard = loopbackGuard(port);
  const [accept] = http.listeners('upgrade') as Array<
    (req: IncomingMessage, socket: Duplex, head: Buffer) => void
  >;
  http.removeAllListeners('upgrade');
  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const refused = guard.refusal(req);
    if (refused) {
      const body = JSON.stringify({ error: refused.message, code: refused.code });
      socket.on('error', () => undefined);
      socket.end(
        `HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      return;
    }
    sockets.set(socket, req.url !== OWN_PATH);
    socket.once('close', () => sockets.delete(socket));
    accept?.call(http, req, socket, head);
    for (const listener of upgraded) listener();
  });
  const hasViewer = () => [...sockets.values()].includes(true);
  return {
    url: `http://localhost:${port}`,
    wsUrl: `ws://127.0.0.1:${port}${OWN_PATH}`,
    viewer: () =>
      hasViewer()
        ? Promise.resolve()
        : new Promise((resolve) => {
            const check = () => {
              if (!hasViewer()) return;
              upgraded.delete(check);
              resolve();
            };
            upgraded.add(check);
          }),
    flush: async (client) => {
      await waitUntil(() => client.status === 'open' && client.ws?.bufferedAmount === 0);
      // The relay forwards on later ticks: wait until nothing more arrives from our client and the viewers' buffers are empty.
      let last = -1;
      let quiet = 0;
      await waitUntil(() => {
        let read = 0;
        let pending = 0;
        for (const [socket, viewer] of sockets) {
          if (viewer) pending += socket.writableLength;
          else read += (socket as Duplex & { bytesRead: number }).bytesRead;
        }
        quiet = read === last && pending === 0 ? quiet + 1 : 0;
        last = read;
        return quiet >= 2;
      });
    },
    stop: () => {
      relay.stop();
      http.closeAllConnections();
      for (const socket of sockets.keys()) socket.destroy();
    },
  };
}

/** Polls `done` every 20 ms, for at most two seconds. */
async function waitUntil(done: () => boolean): Promise<void> {
  const until = Date.now() + 2000;
  while (!done() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
}

function checkPort(port: number, option: { name: string; choose: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => {
      reject(
        new RaymondError(
          'ERR_INSPECT',
          err.code === 'EADDRINUSE'
            ? `${option.name}: port ${port} on 127.0.0.1 is in use; pick another with ${option.choose}`
            : `${option.name}: cannot listen on 127.0.0.1:${port}: ${err.message}`,
        ),
      );
    });
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}
