import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildReport, reportText } from '../../src/merge/merge-report.js';
import { emptyMergeState } from '../../src/merge/merge-state.js';

describe('merge report', () => {
  it('lists merged (with the fix commits and cost of a resolved one), left out and nothing to merge, in merge order', () => {
    const state = emptyMergeState('r');
    state.total_cost_usd = 0.5;
    const target = {
      into: 'all',
      repo: '/r',
      base: 'b'.repeat(40),
      order: ['w3', 'w1', 'w2', 'w4'],
      branches: {
        w1: {
          agent: 'w1',
          branch: 'raymond/r/w1',
          status: 'merged' as const,
          sha: '1'.repeat(40),
          attempts: 1,
          fix_branch: 'raymond/r/w1-fix',
          fix_commits: [{ sha: 'f'.repeat(40), subject: 'resolve' }],
          cost_usd: 0.5,
        },
        w2: {
          agent: 'w2',
          branch: 'raymond/r/w2',
          status: 'left_out' as const,
          reason: 'conflicts with all in a.txt',
          attempts: 0,
          cost_usd: 0,
        },
        w3: {
          agent: 'w3',
          branch: 'raymond/r/w3',
          status: 'merged' as const,
          sha: '3'.repeat(40),
          attempts: 0,
          cost_usd: 0,
        },
        w4: {
          agent: 'w4',
          branch: 'raymond/r/w4',
          status: 'nothing' as const,
          reason: 'no commits',
          attempts: 0,
          cost_usd: 0,
        },
      },
    };
    const r = buildReport({
      state,
      target,
      intoSha: '9'.repeat(40),
      created: true,
      deleted: [],
      interrupted: false,
    });
    assert.deepEqual(
      r.merged.map((m) => [m.agent, m.resolved]),
      [
        ['w3', false],
        ['w1', true],
      ],
    );
    assert.equal(r.cost_usd, 0.5);
    assert.equal(
      reportText(r),
      [
        "all (created at the run's base bbbbbbbbbb) is at 9999999999: 2 merged, 1 left out, 1 with nothing to merge; resolution turns cost $0.50",
        'merged:',
        '  w3  raymond/r/w3  as 3333333333',
        `  w1  raymond/r/w1  as 1111111111; resolved by its agent's session in 1 turn ($0.50), fix commits ffffffffff "resolve"`,
        'left out:',
        '  w2  raymond/r/w2  conflicts with all in a.txt',
        'nothing to merge:',
        '  w4  raymond/r/w4  no commits',
      ].join('\n'),
    );
  });
});
