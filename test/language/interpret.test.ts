import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { interpretOutput } from '../../src/language/interpret.js';
import { RaymondError } from '../../src/errors.js';

const F = 'wf/START.md';

/** The error interpreting `output` throws. */
function refusal(output: string, allowed?: Parameters<typeof interpretOutput>[0]['allowed']) {
  try {
    interpretOutput({ output, file: F, ...(allowed ? { allowed } : {}) });
  } catch (err) {
    assert.ok(err instanceof RaymondError);
    return { code: err.code, message: err.message, file: err.file };
  }
  throw new Error(`${output} was accepted`);
}

describe('interpretOutput: a reply it cannot use', () => {
  it('names a misspelt tag, not what the typo left out, with the code a reminder follows', () => {
    assert.deepEqual(refusal('<fork item="a">W</fork>\n<jion>C</jion>'), {
      code: 'ERR_TAG_PARSE',
      message: 'unknown tag `<jion>`: did you mean `<join>`?',
      file: F,
    });
    assert.deepEqual(refusal('<reslt>done</reslt>'), {
      code: 'ERR_TAG_MISSING',
      message: 'unknown tag `<reslt>`: did you mean `<result>`?',
      file: F,
    });
  });

  it('with allowed_transitions, a reply without a tag is told only the allowed ones', () => {
    const r = refusal('I forgot', [{ tag: 'result', attributes: {} }]);
    assert.deepEqual(r, {
      code: 'ERR_TAG_MISSING',
      message: 'output has no transition tag (expected <result>...</result>)',
      file: F,
    });
  });

  it('a usable reply that mentions nothing misspelt is untouched', () => {
    assert.deepEqual(interpretOutput({ output: '<result>a <b>b</b></result>', file: F }).decision, {
      kind: 'result',
      payload: 'a <b>b</b>',
    });
  });
});
