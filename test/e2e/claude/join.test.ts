import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JoinEntry } from '../../../machines/types.js';
import { summary } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

describe('<join> with the real claude binary', () => {
  it("a markdown parent forks from its reply and joins in its own session, with each worker's result and cost", async () => {
    const s = box.server;
    s.on('PLAN-TURN', {
      text: 'plan-marker-41 <fork topic="apples">RESEARCH</fork><fork topic="pears">RESEARCH</fork><join>SUMMARY</join>',
      usage: { input_tokens: 1000, output_tokens: 100 },
    });
    s.on('WORKER-TURN', (r) => ({
      text: `<result>facts about ${/topic: (\w+)/.exec(r.prompt)?.[1]}</result>`,
      usage: { input_tokens: 2000, output_tokens: 200 },
    }));
    s.on('JOIN-TURN', (r) => ({
      text: `<result>${r.prompt.includes('facts about apples') && r.prompt.includes('facts about pears') ? 'both seen' : 'missing'}</result>`,
    }));
    const wf = box.write(
      {
        'START.md': 'PLAN-TURN: fork a worker per topic and join',
        'RESEARCH.md': 'WORKER-TURN topic: {{topic}}',
        'SUMMARY.md': 'JOIN-TURN of the workers: {{input}}',
      },
      'plan',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'plan']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'both seen');
    const [sum] = s.requestsFor('JOIN-TURN');
    assert.match(
      sum!.transcript,
      /plan-marker-41/,
      "the join state continues the parent's own session",
    );
    for (const w of s.requestsFor('WORKER-TURN'))
      assert.doesNotMatch(w.transcript, /plan-marker-41/, 'workers start fresh');
    const state = box.state('plan');
    const input = JSON.parse(
      /JOIN-TURN of the workers: (.*)$/s.exec(sum!.prompt)![1]!,
    ) as JoinEntry[];
    assert.deepEqual(
      input.map((e) => [e.agent, e.attributes.topic, e.status, e.result]),
      [
        ['main_resear1', 'apples', 'completed', 'facts about apples'],
        ['main_resear2', 'pears', 'completed', 'facts about pears'],
      ],
    );
    for (const e of input) {
      assert.ok(e.cost_usd > 0, `${e.agent} cost something`);
      assert.equal(e.cost_usd, state.agents.find((a) => a.id === e.agent)!.cost_usd);
    }
    const workers = input.reduce((t, e) => t + e.cost_usd, 0);
    assert.ok(state.total_cost_usd > workers, "the run's total holds the workers and the parent");
  });
});
