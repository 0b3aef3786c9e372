import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import {
  fitsPolicyKey,
  FRONTMATTER,
  policyKeyProblem,
  type FrontmatterAsWritten,
} from '../../src/language/frontmatter-schema.js';

describe('frontmatter schemas', () => {
  it('accepts a frontmatter as written, grant keys included', () => {
    // `next` is an attribute the emitted tag must carry: the schema takes any plain value beside the named keys.
    const data = {
      allowed_transitions: [
        { tag: 'goto', target: 'NEXT.md', attributes: ['item'] },
        { tag: 'result', payload: 'done' },
        { tag: 'fork', target: 'W.md', next: 'J.md' },
      ],
      model: 'opus',
      effort: 3,
      timeout: 0,
      force_implicit: false,
      tools: ['Read'],
    };
    assert.ok(TypeCompiler.Compile(FRONTMATTER).Check(data));
    assert.ok(fitsPolicyKey('allowed_transitions', data.allowed_transitions));
    const minimal: FrontmatterAsWritten = { model: 'opus', timeout: 5, on_denial: 'warn' };
    assert.ok(TypeCompiler.Compile(FRONTMATTER).Check(minimal));
    assert.equal(TypeCompiler.Compile(FRONTMATTER).Check({ ...minimal, on_denial: 'stop' }), false);
  });

  it('refuses a malformed value of each key with its one line', () => {
    const cases: [Parameters<typeof policyKeyProblem>[0], unknown, string][] = [
      [
        'allowed_transitions',
        { tag: 'goto' },
        'allowed_transitions must be a list of { tag: ..., target: ... } entries',
      ],
      [
        'allowed_transitions',
        ['goto'],
        'allowed_transitions[0] must be a mapping like { tag: goto, target: NEXT.md }',
      ],
      [
        'allowed_transitions',
        [{ tag: 'goto', target: 'A.md' }, { tag: 'jump' }],
        'allowed_transitions[1] has tag "jump"; expected one of goto, reset, call, function, fork, join, result, ask, call-workflow, function-workflow, fork-workflow, reset-workflow',
      ],
      [
        'allowed_transitions',
        [{ tag: 'goto', target: ['A.md'] }],
        'allowed_transitions[0].target must be a plain value, not object',
      ],
      [
        'allowed_transitions',
        [{ tag: 'fork', target: 'W.md', next: null }],
        'allowed_transitions[0].next must be a plain value, not null',
      ],
      [
        'allowed_transitions',
        [{ tag: 'goto', target: 'A.md', payload: null }],
        'allowed_transitions[0].payload must be a plain value, not null',
      ],
      [
        'allowed_transitions',
        [{ tag: 'result', payload: { a: 1 } }],
        'allowed_transitions[0].payload must be a plain value, not object',
      ],
      [
        'allowed_transitions',
        [{ tag: 'goto', target: 'A.md', attributes: ['ok', '1x'] }],
        'allowed_transitions[0].attributes must be a list of attribute names, like [item, input]; "1x" is not one',
      ],
      ['model', null, 'model must be a plain value, not null'],
      ['effort', ['low'], 'effort must be a plain value, not object'],
      ['timeout', -1, 'timeout must be a number of seconds, 0 or more (0: none), not -1'],
      ['force_implicit', 'yes', 'force_implicit must be true or false, not "yes"'],
    ];
    for (const [key, value, message] of cases) {
      assert.equal(fitsPolicyKey(key, value), false, message);
      assert.equal(policyKeyProblem(key, value), message);
    }
  });

  it('lets a <result> entry fix its payload or leave it null', () => {
    assert.ok(fitsPolicyKey('allowed_transitions', [{ tag: 'result', payload: null }]));
    assert.ok(fitsPolicyKey('timeout', 1.5));
    assert.equal(fitsPolicyKey('timeout', Infinity), false);
  });
});
