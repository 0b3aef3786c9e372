import { Server, createServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { createInspectorServer } from '@statelyai/inspect/server';
import { RaymondError } from '../errors.js';

/** The local relay between Raymond's inspector client and the browser page. */
export interface Relay {
  /** Page to open: it embeds the Stately inspector and feeds it the run's events. */
  url: string;
  /** Where Raymond's inspector client sends the events. */
  wsUrl: string;
  /** Browsers connected (every WebSocket client but Raymond's own). */
  viewers(): number;
  stop(): void;
}

/**
 * Starts `@statelyai/inspect`'s WebSocket relay on 127.0.0.1 only. The
 * library listens on every interface and takes no host, so the one
 * `listen` call it makes is bound to loopback here. A taken port is found
 * beforehand: the library's WebSocket server rethrows its listen error as
 * an uncaught one.
 */
export async function startRelay(port: number): Promise<Relay> {
  await checkPort(port);
  const listen = Server.prototype.listen;
  let server: Server | undefined;
  Server.prototype.listen = function (this: Server, ...args: unknown[]) {
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
  // Upgraded sockets leave the HTTP server's books, and the library's close keeps them open.
  const sockets = new Set<Duplex>();
  http.on('upgrade', (_req, socket: Duplex) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return {
    url: `http://localhost:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    viewers: () => Math.max(0, sockets.size - 1),
    stop: () => {
      relay.stop();
      http.closeAllConnections();
      for (const socket of sockets) socket.destroy();
    },
  };
}

function checkPort(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => {
      reject(new RaymondError('ERR_INSPECT', err.code === 'EADDRINUSE' ? `--inspect: port ${port} on 127.0.0.1 is in use; pick another with --inspect=PORT` : `--inspect: cannot listen on 127.0.0.1:${port}: ${err.message}`));
    });
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}
