import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './measure-cli.js';
import { tailOf } from './tail.js';
import { writeScripts } from './write-scripts.js';

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

/** One fan-out of `n` script workers through the built CLI, traced to `endpoint` when given. */
async function fanOut(n: number, parallel: number, endpoint?: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'raymond-telemetry-'));
  try {
    writeScripts(dir, {
      'START.sh': `#!/usr/bin/env bash\nfor i in $(seq 1 ${n}); do printf '<fork i="%s">W</fork>' "$i"; done\nprintf '<goto>END</goto>'\n`,
      'W.sh': '#!/usr/bin/env bash\necho "<result>$i</result>"\n',
      'END.sh': '#!/usr/bin/env bash\necho "<result>end</result>"\n',
    });
    const env = { ...process.env };
    delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
    const run = await runCli(
      [
        dir,
        '--max-parallel',
        String(parallel),
        '--quiet',
        '--state-dir',
        join(dir, '.raymond', 'state'),
        ...(endpoint ? ['--otel-endpoint', endpoint] : []),
      ],
      { cwd: dir, env, timeoutMs: 900_000 },
    );
    if (run.code !== 0)
      throw new Error(
        `the ${endpoint ? 'traced' : 'untraced'} fan-out of ${n} failed (exit ${run.code ?? run.signal}): ${tailOf(run.stderr)}`,
      );
    return run.wallMs;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

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
      off.push(await fanOut(n, parallel));
      on.push(await fanOut(n, parallel, receiver.url));
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
