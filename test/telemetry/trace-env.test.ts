import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resourceAttributes, traceEnvironment } from '../../src/telemetry/trace-env.js';

const who = { workflowId: 'wf-1', agentId: 'main_w1', state: 'A B.md' };

describe('the trace environment of a step process', () => {
  it('gives a W3C traceparent of a sampled span, and who the process is', () => {
    assert.deepEqual(traceEnvironment({ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) }, who), {
      TRACEPARENT: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`,
      OTEL_RESOURCE_ATTRIBUTES:
        'raymond.workflow_id=wf-1,raymond.agent_id=main_w1,raymond.state=A%20B.md',
    });
  });

  it("keeps the user's own resource attributes first, so that Raymond's win a clash", () => {
    assert.equal(
      resourceAttributes(who, ' team=core,raymond.state=x '),
      'team=core,raymond.state=x,raymond.workflow_id=wf-1,raymond.agent_id=main_w1,raymond.state=A%20B.md',
    );
    assert.equal(resourceAttributes(who, '  ').startsWith('raymond.workflow_id='), true);
  });
});
