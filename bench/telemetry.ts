import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { median, scriptFanOut } from './script-fanout.js';

/** The fan-out's wall times with tracing off and on (medians), and the spans the receiver got. */
export interface TelemetryFigures {
  workers: number;
  offMs: number;
  onMs: number;
  /** Spans received over the traced runs, per traced run. */
  spansPerRun: number;
}

/** An OTLP/HTTP receiver on loopback that counts the spans it is sent and keeps nothing. */
async function spanCounter(): Promise<{ url: string; spans: () => number; close: () => void }> {
  let spans = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      // Counted by their ids: a body is JSON (OTLP/HTTP JSON), one "spanId" per span.
      spans += Buffer.concat(chunks).toString('utf8').split('"spanId"').length - 1;
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => spans,
    close: () => (server.closeAllConnections(), server.close()),
  };
}

/**
 * `n` script workers forked by one parent, with tracing off and on (spans to a receiver on
 * loopback), alternating, `rounds` each: the wall times' medians.
 */
export async function benchTelemetry(
  n: number,
  parallel: number,
  rounds: number,
): Promise<TelemetryFigures> {
  const receiver = await spanCounter();
  try {
    const off: number[] = [];
    const on: number[] = [];
    for (let i = 0; i < rounds; i++) {
      off.push(await scriptFanOut(n, parallel, []));
      on.push(await scriptFanOut(n, parallel, ['--otel-endpoint', receiver.url]));
    }
    return {
      workers: n,
      offMs: median(off),
      onMs: median(on),
      spansPerRun: receiver.spans() / rounds,
    };
  } finally {
    receiver.close();
  }
}
