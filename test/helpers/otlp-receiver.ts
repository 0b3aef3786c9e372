import { startServer, type TestServer } from './http-server.js';

/** One span as an OTLP/HTTP JSON request carried it, its attributes flattened. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  attributes: Record<string, string | number | boolean>;
  /** 2: error (OTLP's STATUS_CODE_ERROR). */
  status: { code?: number; message?: string };
  /** The resource's attributes (`service.name`, ...). */
  resource: Record<string, string | number | boolean>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpBody {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        attributes?: OtlpAttribute[];
        status?: { code?: number; message?: string };
      }>;
    }>;
  }>;
}

function flat(attributes: OtlpAttribute[] = []): Record<string, string | number | boolean> {
  return Object.fromEntries(
    attributes.map(({ key, value: v }) => [
      key,
      v.stringValue ??
        (v.intValue !== undefined ? Number(v.intValue) : undefined) ??
        v.doubleValue ??
        v.boolValue ??
        '',
    ]),
  );
}

/** The spans of one OTLP/HTTP JSON export request. */
export function spansOf(body: OtlpBody): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((rs) =>
    (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ?? '',
        name: s.name,
        attributes: flat(s.attributes),
        status: s.status ?? {},
        resource: flat(rs.resource?.attributes),
      })),
    ),
  );
}

/** An OTLP/HTTP receiver on 127.0.0.1 that keeps every span posted to /v1/traces as JSON. */
export interface OtlpReceiver {
  /** The base endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`). */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** The content types of the requests, in order. */
  readonly contentTypes: string[];
  close(): Promise<void>;
}

/** Starts a receiver; `status` is what it answers (200 unless a test wants a failing endpoint). */
export async function startOtlpReceiver(status = 200): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server: TestServer = await startServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      contentTypes.push(String(req.headers['content-type']));
      if (req.url === '/v1/traces' && status === 200)
        spans.push(...spansOf(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpBody));
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  return { url: server.url, spans, contentTypes, close: () => server.close() };
}
