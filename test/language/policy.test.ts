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
  const ok = [
    '<goto>REVIEW</goto>',
    '<goto>REVIEW.md</goto>',
    '<goto>REVIEW.sh</goto>',
    '<call return="AFTER.md">CHILD</call>',
    '<fork next="D" item="x">W</fork><fork next="D">W</fork>',
    '<result>anything</result>',
  ];
  for (const output of ok) it(`allows ${output}`, () => assert.equal(interpret(output).ok, true));

  const refused: Array<[string, RegExp]> = [
    [
      '<goto>OTHER</goto>',
      /emitted <goto>OTHER<\/goto>, which allowed_transitions does not allow \(allowed: <goto>REVIEW<\/goto>, <call return="AFTER">CHILD\.md<\/call>, <fork next="D">W<\/fork>, <result>\.\.\.<\/result>\)/,
    ],
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
    assert.deepEqual(r, {
      ok: true,
      value: {
        prints: [],
        decision: {
          kind: 'reset',
          target: 'IMPL.md',
          input: undefined,
          cd: undefined,
          worktree: undefined,
        },
      },
    });
  });

  it('does not imply a lone <result>, nor one of several entries', () => {
    assert.equal(
      (
        interpret('no tag', [{ tag: 'result', attributes: {} }]) as {
          ok: false;
          error: { code: string };
        }
      ).error.code,
      'ERR_TAG_MISSING',
    );
    assert.equal(
      (interpret('no tag') as { ok: false; error: { code: string } }).error.code,
      'ERR_TAG_MISSING',
    );
  });

  describe('an entry with an attributes: list', () => {
    const pinned: AllowedTransition[] = [
      { tag: 'fork', target: 'W', attributes: {}, allowedAttributes: ['item'] },
      { tag: 'call', target: 'C', attributes: { return: 'AFTER' }, allowedAttributes: [] },
      { tag: 'goto', target: 'N', attributes: {}, allowedAttributes: ['input'] },
      { tag: 'result', attributes: {}, allowedAttributes: [] },
    ];
    const ok = [
      '<fork next="D" item="x">W</fork>',
      '<fork next="D">W</fork>',
      '<call return="AFTER">C</call>',
      '<goto input="i">N</goto>',
      '<goto>N</goto>',
      '<result>r</result>',
    ];
    for (const output of ok)
      it(`allows ${output}`, () => assert.equal(interpret(output, pinned).ok, true));

    const refused: Array<[string, RegExp]> = [
      [
        '<fork next="D" item="x" BASH_ENV="/p.sh">W</fork>',
        /emitted <fork next="D" item="x" BASH_ENV="\/p\.sh">W<\/fork>, which allowed_transitions does not allow: attributes not in the entry's attributes list: BASH_ENV \(allowed: <fork item="\.\.\.">W<\/fork>, <call return="AFTER">C<\/call>, <goto input="\.\.\.">N<\/goto>, <result>\.\.\.<\/result>\)/,
      ],
      ['<fork next="D" cd="/tmp" input="i">W</fork>', /attributes list: cd, input \(/],
      ['<call return="AFTER" input="i">C</call>', /attributes list: input \(/],
      ['<goto cd="x">N</goto>', /attributes list: cd \(/],
      ['<result extra="1">r</result>', /attributes list: extra \(/],
    ];
    for (const [output, pattern] of refused) {
      it(`refuses ${output}`, () => {
        const r = interpret(output, pinned);
        assert.equal(r.ok, false);
        if (!r.ok) {
          assert.equal(r.error.code, 'ERR_POLICY');
          assert.match(formatError(RaymondError.fromJSON(r.error)), pattern);
        }
      });
    }

    it('lets a tag through on another entry of the same tag that has no list', () => {
      const both: AllowedTransition[] = [pinned[0]!, { tag: 'fork', target: 'W', attributes: {} }];
      assert.equal(interpret('<fork next="D" PATH="/x">W</fork>', both).ok, true);
    });
  });
});

describe('fixed-payload results and force_implicit, as in ray', () => {
  const yesNo: AllowedTransition[] = [
    { tag: 'result', attributes: {}, payload: 'YES' },
    { tag: 'result', attributes: {}, payload: 'NO' },
  ];

  it('accepts only the fixed payloads, compared trimmed, and lists them when refusing', () => {
    assert.deepEqual(interpret('Done. <result>YES</result>', yesNo), {
      ok: true,
      value: { prints: [], decision: { kind: 'result', payload: 'YES' } },
    });
    assert.equal(interpret('<result>\n  NO \n</result>', yesNo).ok, true);
    const r = interpret('<result>MAYBE</result>', yesNo);
    assert.equal(r.ok, false);
    if (!r.ok)
      assert.match(
        formatError(RaymondError.fromJSON(r.error)),
        /emitted <result>MAYBE<\/result>, which allowed_transitions does not allow \(allowed: <result>YES<\/result>, <result>NO<\/result>\)/,
      );
    const long = interpret(`<result>${'x'.repeat(41)}</result>`, yesNo);
    if (!long.ok)
      assert.match(
        long.error.message,
        /emitted <result>\.\.\.<\/result>/,
        'a long payload is not repeated in the message',
      );
  });

  it('makes a single fixed-payload result implicit', () => {
    assert.deepEqual(
      interpret('All processed.', [{ tag: 'result', attributes: {}, payload: 'DONE' }]),
      { ok: true, value: { prints: [], decision: { kind: 'result', payload: 'DONE' } } },
    );
  });

  it('force_implicit takes the single transition whatever tags the reply shows, and keeps its prints', () => {
    const r = runLanguageTask({
      op: 'interpret',
      output: 'Use <goto>OTHER</goto> to move on. <print>noted</print> <result>x</result>',
      file: 'S.md',
      allowed: [{ tag: 'goto', target: 'NEXT.md', attributes: {} }],
      forceImplicit: true,
    });
    assert.deepEqual(r, {
      ok: true,
      value: { prints: ['noted'], decision: { kind: 'goto', target: 'NEXT.md', input: undefined } },
    });
  });
});

describe('allowed_transitions and cross-workflow tags', () => {
  const policy: AllowedTransition[] = [
    { tag: 'call', target: 'CHILD', attributes: { return: 'AFTER' } },
    { tag: 'call-workflow', attributes: { return: 'AFTER' } },
    { tag: 'fork-workflow', target: '../workers/', attributes: { next: 'MONITOR' } },
  ];

  it('allows a cross-workflow tag only through an entry for that tag; the target, when fixed, compares as a path', () => {
    for (const output of [
      '<call-workflow return="AFTER.md">../anything</call-workflow>',
      '<fork-workflow next="MONITOR">../workers</fork-workflow>',
      '<fork-workflow next="MONITOR">..\\workers\\</fork-workflow>',
    ]) {
      assert.equal(interpret(output, policy).ok, true, output);
    }
    for (const output of [
      '<function-workflow return="AFTER">../x</function-workflow>',
      '<fork-workflow next="MONITOR">../other</fork-workflow>',
      '<reset-workflow>../x</reset-workflow>',
    ]) {
      assert.equal(interpret(output, policy).ok, false, output);
    }
  });

  it('a state allowed only <call> cannot emit <call-workflow>', () => {
    const r = interpret('<call-workflow return="AFTER">../x</call-workflow>', [
      { tag: 'call', target: 'CHILD', attributes: { return: 'AFTER' } },
    ]);
    assert.equal(r.ok, false);
    if (!r.ok)
      assert.match(
        r.error.message,
        /emitted <call-workflow return="AFTER">\.\.\/x<\/call-workflow>, which allowed_transitions does not allow \(allowed: <call return="AFTER">CHILD<\/call>\)/,
      );
  });

  it('makes a single cross-workflow entry implicit only when it fixes the workflow', () => {
    const fixed = interpret('no tag', [
      { tag: 'reset-workflow', target: '../next-phase/', attributes: {} },
    ]);
    assert.deepEqual(fixed.ok && (fixed.value as { decision: unknown }).decision, {
      kind: 'reset',
      target: '../next-phase/',
      workflow: { spec: '../next-phase/' },
      input: undefined,
      cd: undefined,
      worktree: undefined,
    });
    const open = interpret('no tag', [{ tag: 'call-workflow', attributes: { return: 'AFTER' } }]);
    assert.equal(!open.ok && open.error.code, 'ERR_TAG_MISSING');
  });
});

describe('allowed_transitions: <join>', () => {
  const policy: AllowedTransition[] = [
    { tag: 'fork', target: 'W', attributes: {} },
    { tag: 'join', target: 'COLLECT', attributes: {} },
  ];
  it('allows the forks with the join it lists', () =>
    assert.equal(interpret('<fork item="a">W</fork><join>COLLECT</join>', policy).ok, true));
  it('refuses a join to another state, and a join where only goto is allowed', () => {
    const other = interpret('<fork>W</fork><join>ELSEWHERE</join>', policy);
    assert.equal(other.ok, false);
    const gotoOnly = interpret('<join>REVIEW</join>');
    assert.equal(gotoOnly.ok, false);
    if (!gotoOnly.ok)
      assert.match(
        formatError(RaymondError.fromJSON(gotoOnly.error)),
        /emitted <join>REVIEW<\/join>, which allowed_transitions does not allow/,
      );
  });
});
