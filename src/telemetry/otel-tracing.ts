import { Socket } from 'node:net';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import type { RunEvent } from '../../machines/run-events.js';
import { SpanTree } from './span-tree.js';

/**
 * The OpenTelemetry SDK side of a run's traces: a tracer provider whose
 * spans go, in batches, to an OTLP/HTTP (JSON) endpoint. Only
 * run-tracer.ts imports this module, dynamically, when tracing is on: a run
 * without it never loads the SDK.
 */

/**
 * How long the run's end waits for its last spans to be sent, and the
 * absolute deadline of each export connection (the exporter's own timeout is
 * an idle one, which an endpoint trickling a byte a second resets for ever).
 */
export const FLUSH_MS = 3000;

/** ExportResultCode.SUCCESS of @opentelemetry/core (a dependency of the SDK's, not Raymond's). */
const EXPORT_SUCCESS = 0;

/** The exporter, saying once (and only once) that spans could not be sent: the run goes on. */
function warningExporter(inner: SpanExporter, url: string, warn: (text: string) => void) {
  let warned = false;
  const exporter: SpanExporter = {
    export(spans: ReadableSpan[], done) {
      inner.export(spans, (result) => {
        if ((result.code as number) !== EXPORT_SUCCESS && !warned) {
          warned = true;
          warn(
            `traces: could not send spans to ${url} (${result.error?.message ?? 'export failed'}); the run goes on without them`,
          );
        }
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
  return exporter;
}

/** Resolves after `ms`, without keeping the process alive. */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * An HTTP(S) agent for the exporter whose connections never keep the process
 * alive (unref'd: a run that has ended exits, whatever the endpoint does) and
 * are destroyed FLUSH_MS after they open, answered or not. Without keep-alive,
 * one connection carries one request, so that is each request's deadline.
 */
async function deadlineAgent(protocol: string) {
  const http = protocol === 'https:' ? await import('node:https') : await import('node:http');
  const agent = new http.Agent({ keepAlive: false });
  const open = agent.createConnection.bind(agent);
  agent.createConnection = (options, callback) => {
    const socket = open(options, callback);
    if (socket instanceof Socket) {
      socket.unref();
      const deadline = setTimeout(
        () => socket.destroy(new Error(`no complete answer within ${FLUSH_MS} ms`)),
        FLUSH_MS,
      ).unref();
      socket.once('close', () => clearTimeout(deadline));
    }
    return socket;
  };
  return agent;
}

/** Starts a run's tracing: spans of `tree` go to `url` (the traces endpoint itself, `.../v1/traces`). */
export function startTracing(url: string, warn: (text: string) => void) {
  const exporter = warningExporter(
    new OTLPTraceExporter({ url, timeoutMillis: FLUSH_MS, httpAgentOptions: deadlineAgent }),
    url,
    warn,
  );
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'raymond' }),
    spanProcessors: [
      // A fan-out of thousands of workers makes several spans each: none is dropped while the queue holds them.
      new BatchSpanProcessor(exporter, {
        maxQueueSize: 65_536,
        maxExportBatchSize: 1024,
        scheduledDelayMillis: 1000,
        exportTimeoutMillis: FLUSH_MS,
      }),
    ],
  });
  const tree = new SpanTree(provider.getTracer('raymond'), process.env.OTEL_RESOURCE_ATTRIBUTES);
  // A RunTracer (run-tracer.ts, which imports this module lazily).
  return {
    event: (e: RunEvent) => tree.event(e),
    env: (agentId: string) => tree.env(agentId),
    // Bounded: an endpoint that never answers costs the run's end FLUSH_MS at most.
    close: () => Promise.race([provider.shutdown().catch(() => undefined), delay(FLUSH_MS)]),
  };
}
