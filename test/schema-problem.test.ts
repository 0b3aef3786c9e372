import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type as T } from '@sinclair/typebox';
import { checked, mustBe } from '../src/schema-problem.js';

const SCHEMA = T.Object({
  name: T.String({ minLength: 1 }),
  count: T.Optional(T.Integer()),
  mode: T.Union([T.Literal('a'), T.Literal('b')]),
  note: T.Optional(T.Union([T.String(), T.Null()])),
  tags: T.Array(T.String()),
  inner: T.Optional(T.Object({ x: T.Number() })),
  blob: T.Optional(T.Object({ y: T.Number() }, { opaque: true, must: 'a blob ({y})' })),
});
const c = checked(SCHEMA);
const good = { name: 'n', mode: 'a', tags: ['t'] };

describe('checked', () => {
  it('checks with the compiled schema and finds no problem in a value that fits', () => {
    assert.ok(c.check(good));
    assert.equal(c.problem(good), undefined);
    assert.equal(
      c.problem({ ...good, extra: 1 }),
      undefined,
      'fields it does not know are left alone',
    );
  });

  it('names the first wrong field in one line', () => {
    const cases: Array<[unknown, string]> = [
      [null, 'the body must be an object'],
      [[], 'the body must be an object'],
      [{ ...good, name: '' }, 'name is ""; it must be a non-empty string'],
      [{ ...good, name: undefined }, 'name is missing; it must be a non-empty string'],
      [{ ...good, count: 1.5 }, 'count is 1.5; it must be a whole number'],
      [{ ...good, mode: 'c' }, 'mode is "c"; it must be one of a, b'],
      [{ ...good, note: 3 }, 'note is 3; it must be a string or null'],
      [{ ...good, tags: 'x' }, 'tags must be a list'],
      [{ ...good, tags: ['ok', 2] }, 'tags[1] is 2; it must be a string'],
      [{ ...good, inner: { x: 'no' } }, 'inner.x is "no"; it must be a number'],
      [{ ...good, blob: { y: 'no' } }, 'blob is {"y":"no"}; it must be a blob ({y})'],
      [{ ...good, name: 'x'.repeat(100), mode: 1 }, 'mode is 1; it must be one of a, b'],
    ];
    for (const [value, problem] of cases) assert.equal(c.problem(value, 'the body'), problem);
  });

  it('cuts a long value short in the message', () => {
    assert.equal(
      c.problem({ ...good, mode: 'z'.repeat(100) }),
      `mode is "${'z'.repeat(39)}; it must be one of a, b`,
    );
  });
});

describe('mustBe', () => {
  it('says what a schema wants in words', () => {
    assert.equal(mustBe(T.Boolean()), 'true or false');
    assert.equal(mustBe(T.Literal(1)), '1');
    assert.equal(mustBe(T.Array(T.String())), 'a list');
    assert.equal(mustBe(T.Union([T.Number(), T.Null()])), 'a number or null');
    assert.equal(
      mustBe(T.Record(T.String(), T.String(), { must: 'an object of strings' })),
      'an object of strings',
    );
  });
});
