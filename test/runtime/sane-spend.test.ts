import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { figuresWarning, saneFigures } from '../../src/runtime/sane-spend.js';

describe('saneFigures', () => {
  it('keeps finite, non-negative figures as they are', () => {
    assert.deepEqual(saneFigures({ costUsd: 0.25, sessionTotal: 1.5, tokens: 300 }), {
      costUsd: 0.25,
      sessionTotal: 1.5,
      tokens: 300,
      problems: [],
    });
    assert.deepEqual(saneFigures({ costUsd: 0, sessionTotal: null }).problems, []);
  });

  it('charges an infinite, NaN or negative cost as $0 and says so', () => {
    for (const bad of [Infinity, -Infinity, NaN, -0.01, 1e308]) {
      const s = saneFigures({ costUsd: bad, sessionTotal: 2 });
      assert.equal(s.costUsd, 0);
      assert.equal(s.sessionTotal, 2);
      assert.deepEqual(s.problems, [`a cost of ${String(bad)}`]);
    }
  });

  it('drops an unusable session total or token count (unknown, not stored)', () => {
    const s = saneFigures({ costUsd: 1, sessionTotal: -3, tokens: Infinity });
    assert.equal(s.costUsd, 1);
    assert.equal(s.sessionTotal, undefined);
    assert.equal(s.tokens, undefined);
    assert.equal(
      figuresWarning(s.problems),
      'the agent CLI reported a session total of -3, a token count of Infinity, which Raymond cannot count: a cost is taken as $0, a total or a token count as unknown, and the run goes on',
    );
  });
});
