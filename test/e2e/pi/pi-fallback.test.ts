import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunCosts } from '../../../src/history/history-stats.js';
import { summary } from '../../helpers/cli.js';
import { PI_SMALL_TURN_USD, PiSandbox } from '../../helpers/pi-sandbox.js';

const box = new PiSandbox();
before(() => box.start());
after(() => box.stop());

describe('fallback_models on pi (no fallback of its own: the markdown step moves on)', () => {
  it("a model overloaded (529) past pi's retries: the turn goes again on the next model, priced at it", async () => {
    box.server.on('PI-FALLBACK', (r) => ({ text: `<result>answered by ${r.model}</result>` }));
    box.server.overload('mock-model', 0, 60_000);
    const wf = box.write(
      {
        'workflow.yaml': 'backend: pi\n',
        'START.md':
          '---\nmodel: mock/mock-model\nfallback_models: [mock/mock-small]\n---\nPI-FALLBACK',
      },
      'pifallback',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'pifallback-run', '--verbose']);
    assert.equal(r.code, 0, r.stderr);
    const out = summary(r);
    assert.equal(out.results.main, 'answered by mock-small');
    // pi's own retries are off here; its provider's client still tries a 529 three times.
    assert.equal(box.server.overloaded, 3, 'the model was asked once, then never again');
    assert.ok(Math.abs(out.total_cost_usd - PI_SMALL_TURN_USD) < 1e-9, `${out.total_cost_usd}`);
    assert.match(r.stderr, /going on with mock\/mock-small \(fallback_models\)/);
    assert.doesNotMatch(r.stderr, /retrying \(1\/3\)/);
    // pi names the model of each reply: the history records the fallback model as the one that answered.
    const stats = await box.run(['stats', 'pifallback-run', '--json']);
    assert.equal(stats.code, 0, stats.stderr);
    const start = (JSON.parse(stats.stdout) as RunCosts).byState.find((s) => s.name === 'START.md');
    assert.deepEqual(start?.answeredBy, { 'mock-small': 1 });
  });
});
