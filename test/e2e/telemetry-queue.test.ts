import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Sandbox, sh, summary } from '../helpers/cli.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { QueueWorkers, TEST_SECRET } from '../helpers/queue-workers.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';

// A queued run's steps run on a worker process: the coordinator keeps the spans, and the
// signed step jobs carry each step's trace context to the worker, whose scripts get it.
const box = new Sandbox();
let redis: RedisServer | undefined;
let workers: QueueWorkers;
let receiver: OtlpReceiver;

before(async () => {
  receiver = await startOtlpReceiver();
  redis = await startRedis();
  if (redis) workers = new QueueWorkers(redis.url, box.dir);
});
after(async () => {
  await workers?.stopAll();
  await redis?.stop();
  await receiver.close();
  box.remove();
});

describe('traces of a --queue run', () => {
  it("gives the scripts on a worker the coordinator's step spans as TRACEPARENT", async (t) => {
    if (!redis)
      return t.skip('redis-server is not installed (apt-get install redis-server): skipped');
    await workers.start('traced');
    const seen = join(box.dir, 'traceparents.log');
    const wf = box.write(
      {
        'START.sh': sh(
          'for i in 1 2; do echo "<fork next=\\"DONE.sh\\" item=\\"$i\\">WORK.sh</fork>"; done',
          'echo "<goto>DONE.sh</goto>"',
        ),
        'WORK.sh': sh(
          `echo "$RAYMOND_AGENT_ID $TRACEPARENT" >> ${seen}`,
          'echo "<result>$item</result>"',
        ),
        'DONE.sh': sh('echo "<result>done</result>"'),
      },
      'queued',
    );
    const r = await box.run([wf, '--queue', redis.url, '--json', '--workflow-id', 'queued'], {
      RAYMOND_QUEUE_SECRET: TEST_SECRET,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).status, 'completed');
    const spans = receiver.spans.filter((s) => s.attributes['raymond.workflow_id'] === 'queued');
    const run = spans.find((s) => s.parentSpanId === '')!;
    assert.equal(run.name, 'raymond run queued');
    const lines = readFileSync(seen, 'utf8').trim().split('\n');
    assert.equal(lines.length, 2);
    for (const line of lines) {
      const [agent, traceparent] = line.split(' ');
      const step = spans.find(
        (s) => s.name === 'step WORK.sh' && s.attributes['raymond.agent_id'] === agent,
      );
      assert.ok(step, `a step span for ${agent}`);
      assert.equal(traceparent, `00-${run.traceId}-${step.spanId}-01`);
      const agentSpan = spans.find((s) => s.spanId === step.parentSpanId)!;
      assert.equal(agentSpan.name, `agent ${agent}`);
      assert.equal(agentSpan.parentSpanId, run.spanId);
    }
  });
});
