import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { CLI, Sandbox, sh } from '../helpers/cli.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';

// Ctrl-C ends a traced run as any end does: its spans are sent before the process exits.
const box = new Sandbox();
let receiver: OtlpReceiver;
before(async () => {
  receiver = await startOtlpReceiver();
});
after(async () => {
  await receiver.close();
  box.remove();
});

describe('traces of an interrupted run', () => {
  it('sends the spans of a run stopped with Ctrl-C, its outcome stopped', async () => {
    const wf = box.write(
      {
        'START.sh': sh('touch started', 'sleep 1', 'echo "<goto>NEXT.sh</goto>"'),
        'NEXT.sh': sh('echo "<result>never</result>"'),
      },
      'stopped',
    );
    const child = execa(process.execPath, [CLI, wf, '--workflow-id', 'stopped'], {
      cwd: box.dir,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
      reject: false,
      stdin: 'ignore',
    });
    const end = Date.now() + 15_000;
    while (!existsSync(join(box.dir, 'started')) && Date.now() < end) await sleep(50);
    child.kill('SIGINT');
    const r = await child;
    assert.equal(r.exitCode, 130, r.stderr);
    const spans = receiver.spans.filter((s) => s.attributes['raymond.workflow_id'] === 'stopped');
    const run = spans.find((s) => s.parentSpanId === '');
    assert.ok(run, `the run span was sent: ${spans.map((s) => s.name).join(', ')}`);
    assert.equal(run.attributes['raymond.outcome'], 'stopped');
    const agent = spans.find((s) => s.name === 'agent main')!;
    assert.equal(agent.attributes['raymond.outcome'], 'stopped');
    assert.deepEqual(spans.map((s) => s.name).sort(), [
      'agent main',
      'raymond run stopped',
      'step START.sh',
    ]);
  });
});
