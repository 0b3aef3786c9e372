import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_TOOL_NAME, toolNamesOf } from '../../src/mcp/tool-names.js';

describe('toolNamesOf', () => {
  it('keeps ids that are already tool names', () => {
    const names = toolNamesOf(['classify', 'count-words', 'plan_then_implement']);
    assert.deepEqual(
      [...names],
      [
        ['classify', 'classify'],
        ['count-words', 'count-words'],
        ['plan_then_implement', 'plan_then_implement'],
      ],
    );
  });

  it('makes other characters _, trims the ends, and names an empty result "workflow"', () => {
    const names = toolNamesOf(['review code.v2', '  spaced  ', '...']);
    assert.equal(names.get('review code.v2'), 'review_code_v2');
    assert.equal(names.get('  spaced  '), 'spaced');
    assert.equal(names.get('...'), 'workflow');
  });

  it('cuts long ids to MAX_TOOL_NAME and tells colliding ids apart in sorted order', () => {
    const long = 'x'.repeat(60);
    const names = toolNamesOf([`${long}b`, `${long}a`, 'a.b', 'a b']);
    assert.equal(names.get(`${long}a`), 'x'.repeat(MAX_TOOL_NAME));
    assert.equal(names.get(`${long}b`), `${'x'.repeat(MAX_TOOL_NAME - 2)}_2`);
    assert.equal(names.get('a b'), 'a_b');
    assert.equal(names.get('a.b'), 'a_b_2');
    for (const n of names.values()) assert.ok(n.length <= MAX_TOOL_NAME);
  });

  it("never gives a workflow one of Raymond's own tool names", () => {
    const names = toolNamesOf(['raymond_status', 'raymond status']);
    assert.equal(names.get('raymond status'), 'raymond_status_2');
    assert.equal(names.get('raymond_status'), 'raymond_status_3');
  });
});
