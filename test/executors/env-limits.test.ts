import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ENV_LIMITS,
  POINTER_BYTES,
  planEnvironment,
  type EnvLimits,
} from '../../src/executors/env-limits.js';

/** The names whose values go to files; a value file's path is 10 bytes here. */
function toFiles(
  env: Record<string, string | undefined>,
  limits: EnvLimits = ENV_LIMITS,
): string[] {
  return [...planEnvironment(env, limits, 10).files];
}

describe('which values go to files', () => {
  it('keeps every value whose NAME=value and NUL fit in one variable; sends the first byte over to a file', () => {
    const fits = 'x'.repeat(ENV_LIMITS.entryBytes - 'A='.length - 1);
    assert.deepEqual(toFiles({ A: fits, B: 'small', C: undefined }), []);
    assert.deepEqual(toFiles({ A: `${fits}x`, B: 'small' }), ['A']);
  });

  it('counts bytes, not characters', () => {
    const limits = { entryBytes: 100, totalBytes: 1000 };
    assert.deepEqual(toFiles({ A: 'é'.repeat(40) }, limits), [], '80 bytes');
    assert.deepEqual(toFiles({ A: 'é'.repeat(50) }, limits), ['A'], '100 bytes, plus A= and NUL');
  });

  it('sends a value holding a NUL character to a file, whatever its size', () => {
    assert.deepEqual(toFiles({ A: 'a\0b', B: 'ab' }), ['A']);
  });

  it('when the variables together are over the total, moves the values whose move saves the most until the rest fit, counting each NAME_FILE left behind', () => {
    const limits = { entryBytes: 100, totalBytes: 200 };
    const env = { S: 'x'.repeat(10), M: 'x'.repeat(60), L: 'x'.repeat(90), L2: 'x'.repeat(80) };
    // With pointers: 21 + 71 + 101 + 92 = 285. A NAME_FILE of a 10-byte path costs 1 or 2 + 6 + 10 + 1 + 8: moving L saves 75 (210 left), then L2 65 (145).
    const plan = planEnvironment(env, limits, 10);
    assert.deepEqual([...plan.files], ['L', 'L2']);
    assert.equal(plan.bytes, 145);
  });

  it("counts each variable's pointer: many small ones are over the total even with nothing in files", () => {
    const env = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`v${i}`, '']));
    const text = Object.entries(env).reduce((n, [k]) => n + k.length + 2, 0);
    assert.equal(
      planEnvironment(env, { entryBytes: 100, totalBytes: 10_000 }, 10).bytes,
      text + 100 * POINTER_BYTES,
    );
    const plan = planEnvironment(env, { entryBytes: 100, totalBytes: text }, 10);
    assert.ok(plan.bytes > text, 'nothing placed can make them fit');
    assert.deepEqual([...plan.files], [], 'a NAME_FILE is no smaller than an empty value');
  });

  it('names a variable whose name is too long even for its NAME_FILE', () => {
    const long = 'n'.repeat(200);
    const plan = planEnvironment(
      { [long]: 'v', ok: 'v' },
      { entryBytes: 100, totalBytes: 10_000 },
      10,
    );
    assert.equal(plan.tooLong, long);
  });
});
