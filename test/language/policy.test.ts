import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RaymondError, formatError } from '../../src/errors.js';
import { runLanguageTask } from '../../src/language/language-tasks.js';
import type { AllowedTransition } from '../../src/language/frontmatter.js';

const allowed: AllowedTransition[] = [
  { tag: 'goto', target: 'REVIEW', attributes: {} },
  { tag: 'call', target: 'CHILD.md', attributes: { return: 'AFTER' } },
  { tag: 'fork', target: 'W', attributes: { next: 'D' } },
  { tag: 'result', attributes: {} },
];

function interpret(output: string, policy = allowed) {
  return runLanguageTask({ op: 'interpret', output, file: 'S.md', allowed: policy });
}

describe('allowed_transitions', () => {
  const ok = ['<goto>REVIEW</goto>', '<goto>REVIEW.md</goto>', '<goto>REVIEW.sh</goto>', '<call return="AFTER.md">CHILD</call>', '<fork next="D" item="x">W</fork><fork next="D">W</fork>', '<result>anything</result>'];
  for (const output of ok) it(`allows ${output}`, () => assert.equal(interpret(output).ok, true));

  const refused: Array<[string, RegExp]> = [
    ['<goto>OTHER</goto>', /emitted <goto>OTHER<\/goto>, which allowed_transitions does not allow \(allowed: <goto>REVIEW<\/goto>, <call return="AFTER">CHILD\.md<\/call>, <fork next="D">W<\/fork>, <result>\.\.\.<\/result>\)/],
    ['<reset>REVIEW</reset>', /emitted <reset>REVIEW<\/reset>/],
    ['<call return="ELSE">CHILD</call>', /emitted <call return="ELSE">CHILD<\/call>/],
    ['<call>CHILD</call>', /emitted <call>CHILD<\/call>/],
  ];
  for (const [output, pattern] of refused) {
    it(`refuses ${output}`, () => {
      const r = interpret(output);
      assert.equal(r.ok, false);
      if (!r.ok) {
        assert.equal(r.error.code, 'ERR_POLICY');
        assert.match(formatError(RaymondError.fromJSON(r.error)), pattern);
      }
    });
  }

  it('takes the single non-result transition when no tag was emitted', () => {
    const r = interpret('I wrote the plan.', [{ tag: 'reset', target: 'IMPL.md', attributes: {} }]);
    assert.deepEqual(r, { ok: true, value: { prints: [], decision: { kind: 'reset', target: 'IMPL.md', input: undefined, cd: undefined, worktree: undefined } } });
  });

  it('does not imply a lone <result>, nor one of several entries', () => {
    assert.equal((interpret('no tag', [{ tag: 'result', attributes: {} }]) as { ok: false; error: { code: string } }).error.code, 'ERR_TAG_MISSING');
    assert.equal((interpret('no tag') as { ok: false; error: { code: string } }).error.code, 'ERR_TAG_MISSING');
  });
});
