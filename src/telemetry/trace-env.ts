/**
 * The environment a step's process gets so that its own telemetry joins the
 * run's trace: `TRACEPARENT` (W3C Trace Context) names the span it runs
 * under, and `OTEL_RESOURCE_ATTRIBUTES` says which run, agent and state it
 * belongs to. Pure text: loaded whether tracing is on or not.
 */

/** What a step's process is told of where it runs. */
export interface TraceIdentity {
  workflowId: string;
  agentId: string;
  state: string;
}

/** A W3C `traceparent` header value for a sampled span. */
export function traceparent(traceId: string, spanId: string): string {
  return `00-${traceId}-${spanId}-01`;
}

/**
 * `OTEL_RESOURCE_ATTRIBUTES` for a step's process: the user's own (`inherited`) first, then
 * Raymond's, which win a clash. Values are percent-encoded, as the specification asks.
 */
export function resourceAttributes(who: TraceIdentity, inherited?: string): string {
  const ours = [
    `raymond.workflow_id=${encodeURIComponent(who.workflowId)}`,
    `raymond.agent_id=${encodeURIComponent(who.agentId)}`,
    `raymond.state=${encodeURIComponent(who.state)}`,
  ].join(',');
  return inherited?.trim() ? `${inherited.trim()},${ours}` : ours;
}

/** The variables added to a step's process: the span it runs under, and who it is. */
export function traceEnvironment(
  parent: { traceId: string; spanId: string },
  who: TraceIdentity,
  inherited?: string,
): Record<string, string> {
  return {
    TRACEPARENT: traceparent(parent.traceId, parent.spanId),
    OTEL_RESOURCE_ATTRIBUTES: resourceAttributes(who, inherited),
  };
}
