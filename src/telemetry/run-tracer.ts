import type { RunEvent } from '../../machines/run-events.js';
import { httpUrlProblem } from '../http-url.js';

/**
 * A run's traces: its events become OpenTelemetry spans (run, agents,
 * steps, turns), and each step's process is told which span it runs under.
 */
export interface RunTracer {
  /** Takes one event of the run. */
  event(e: RunEvent): void;
  /** The environment to add to the process an agent's step starts now (TRACEPARENT, OTEL_RESOURCE_ATTRIBUTES). */
  env(agentId: string): Readonly<Record<string, string>> | undefined;
  /** Sends the spans still waiting, waiting a bounded time for the endpoint. */
  close(): Promise<void>;
}

/**
 * Where a run's spans go, if anywhere: `--otel-endpoint` (or `otel_endpoint`), else
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (the traces URL itself), else
 * OTEL_EXPORTER_OTLP_ENDPOINT; a base endpoint gets `/v1/traces`, as the
 * OpenTelemetry specification says. OTEL_SDK_DISABLED=true turns tracing off.
 */
export function tracesUrl(
  setting: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | undefined {
  if (setting === undefined && env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true')
    return undefined;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (setting === undefined && traces) return traces;
  const base = setting ?? env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!base) return undefined;
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * The run's tracer, or undefined when tracing is off (no endpoint): then
 * nothing of OpenTelemetry is loaded, and a run pays one null check per
 * event. `warn` says, once, that the endpoint could not be reached.
 */
export async function openRunTracer(
  setting: string | undefined,
  warn: (text: string) => void,
): Promise<RunTracer | undefined> {
  const url = tracesUrl(setting);
  if (url === undefined) return undefined;
  const problem = httpUrlProblem(url);
  if (problem !== undefined) {
    warn(
      `traces: the OTLP endpoint ${url} is not an http(s) URL: ${problem}; the run goes on without traces`,
    );
    return undefined;
  }
  const { startTracing } = await import('./otel-tracing.js');
  return startTracing(url, warn);
}
