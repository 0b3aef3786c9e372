import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openRunTracer, tracesUrl } from '../../src/telemetry/run-tracer.js';

describe('where traces go', () => {
  it('takes the setting, else the traces endpoint, else the base endpoint with /v1/traces', () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/custom',
    };
    assert.equal(tracesUrl('http://mine:4318', env), 'http://mine:4318/v1/traces');
    assert.equal(tracesUrl(undefined, env), 'http://traces:4318/custom');
    assert.equal(
      tracesUrl(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }),
      'http://collector:4318/v1/traces',
    );
    assert.equal(tracesUrl(undefined, {}), undefined);
    assert.equal(tracesUrl(undefined, { ...env, OTEL_SDK_DISABLED: 'true' }), undefined);
    assert.equal(
      tracesUrl('http://mine:4318', { OTEL_SDK_DISABLED: 'true' }),
      'http://mine:4318/v1/traces',
    );
  });

  it('is off without an endpoint, and says in one line that an endpoint is no http URL', async () => {
    const warnings: string[] = [];
    const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
    try {
      assert.equal(await openRunTracer(undefined, (w) => warnings.push(w)), undefined);
      process.env.OTEL_EXPORTER_OTLP_ENDPOINT = 'collector:4318';
      assert.equal(await openRunTracer(undefined, (w) => warnings.push(w)), undefined);
    } finally {
      if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
      else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved;
    }
    assert.deepEqual(warnings, [
      'traces: the OTLP endpoint collector:4318/v1/traces is not an http(s) URL: it is a collector: URL; the run goes on without traces',
    ]);
  });
});
