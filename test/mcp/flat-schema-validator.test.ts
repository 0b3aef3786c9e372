import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FlatSchemaValidator } from '../../src/mcp/flat-schema-validator.js';

const check = new FlatSchemaValidator().getValidator<{ answer: string }>({
  type: 'object',
  properties: {
    answer: { type: 'string' },
    count: { type: 'integer' },
    sure: { type: 'boolean' },
    colour: { type: 'string', enum: ['red', 'blue'] },
  },
  required: ['answer'],
});

describe('FlatSchemaValidator (elicitation answers)', () => {
  it('takes an answer that fits, and gives it back', () => {
    const r = check({ answer: 'approve', count: 2, sure: true, colour: 'red' });
    assert.equal(r.valid, true);
    assert.deepEqual(r.data, { answer: 'approve', count: 2, sure: true, colour: 'red' });
  });

  it('refuses a missing required field, a wrong type, a value outside the enum, and a non-object', () => {
    assert.equal(check({}).errorMessage, '"answer" is required');
    assert.equal(check({ answer: 3 }).errorMessage, '"answer" must be a string');
    assert.equal(check({ answer: 'a', count: 1.5 }).errorMessage, '"count" must be an integer');
    assert.equal(
      check({ answer: 'a', colour: 'green' }).errorMessage,
      '"colour" must be one of red, blue',
    );
    assert.equal(check(['approve']).errorMessage, 'the answer must be an object');
    assert.equal(check(null).valid, false);
  });
});
