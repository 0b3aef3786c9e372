import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RESERVED_FORK_ATTRIBUTES, decide } from '../../src/language/decide.js';
import { interpretOutput } from '../../src/language/interpret.js';
import { parseOutput } from '../../src/language/parse-output.js';
import { RaymondError } from '../../src/errors.js';

const F = 'wf/S.sh';
const d = (text: string) => decide(parseOutput(text, F).tags, F);

describe('decide: the task attribute', () => {
  it('task="new" on <reset> asks for a fresh folder; none keeps the folder', () => {
    assert.deepEqual(d('<reset task="new">N</reset>'), {
      kind: 'reset',
      target: 'N',
      input: undefined,
      cd: undefined,
      worktree: undefined,
      newTask: true,
    });
    assert.equal((d('<reset>N</reset>') as { newTask?: boolean }).newTask, undefined);
  });

  it('task="inherit" on <fork> shares the parent\'s folder, and task is never a worker variable', () => {
    const fork = d(
      '<fork next="N" task="inherit" item="x">W</fork><fork next="N" task="new">W</fork>',
    );
    assert.ok(fork.kind === 'fork');
    assert.equal(fork.workers[0]!.inheritTask, true);
    assert.deepEqual(fork.workers[0]!.attributes, { item: 'x' });
    assert.equal(fork.workers[1]!.inheritTask, undefined);
    assert.ok(RESERVED_FORK_ATTRIBUTES.has('task'));
  });

  it('refuses any other value with one ERR_TAG_PARSE line naming the values the tag takes', () => {
    const cases: Array<[string, string]> = [
      ['<reset task="inherit">N</reset>', '<reset> task="inherit": expected task="new"'],
      [
        '<fork next="N" task="refactor">W</fork>',
        '<fork> task="refactor": expected task="new" or task="inherit"',
      ],
    ];
    for (const [text, message] of cases) {
      assert.throws(
        () => d(text),
        (err: unknown) =>
          err instanceof RaymondError &&
          err.code === 'ERR_TAG_PARSE' &&
          err.message === message &&
          err.file === F,
      );
    }
  });
});

describe("interpretOutput: variables in an implicit transition's input", () => {
  const allowed = [
    {
      tag: 'goto' as const,
      target: 'NEXT',
      attributes: { input: '{{task_folder}}/plan.md by {{agent_id}} of {{workflow_id}} {{item}}' },
    },
  ];
  const implicitVariables = { workflow_id: 'wf', agent_id: 'main', task_folder: '/p/t' };

  it('renders {{workflow_id}}, {{agent_id}} and {{task_folder}} when the reply had no tag', () => {
    const { decision } = interpretOutput({ output: 'done', file: F, allowed, implicitVariables });
    assert.deepEqual(decision, {
      kind: 'goto',
      target: 'NEXT',
      input: '/p/t/plan.md by main of wf {{item}}',
    });
  });

  it("passes a written tag's input as written", () => {
    const { decision } = interpretOutput({
      output:
        '<goto input="{{task_folder}}/plan.md by {{agent_id}} of {{workflow_id}} {{item}}">NEXT</goto>',
      file: F,
      allowed,
      implicitVariables,
    });
    assert.deepEqual(decision, {
      kind: 'goto',
      target: 'NEXT',
      input: '{{task_folder}}/plan.md by {{agent_id}} of {{workflow_id}} {{item}}',
    });
  });
});

describe('decide: cross-workflow tags', () => {
  it('reads each tag into the decision of its single-workflow analogue, with the specifier kept as written', () => {
    assert.deepEqual(d('<call-workflow return="R" input="i">../other/</call-workflow>'), {
      kind: 'call',
      target: '../other/',
      workflow: { spec: '../other/' },
      returnTo: 'R',
      input: 'i',
      cd: undefined,
    });
    assert.deepEqual(d('<function-workflow return="R" cd="wt">x.zip/STATE</function-workflow>'), {
      kind: 'function',
      target: 'x.zip/STATE',
      workflow: { spec: 'x.zip/STATE' },
      returnTo: 'R',
      input: undefined,
      cd: 'wt',
    });
    assert.deepEqual(d('<reset-workflow cd="/a" task="new">flow.yaml</reset-workflow>'), {
      kind: 'reset',
      target: 'flow.yaml',
      workflow: { spec: 'flow.yaml' },
      input: undefined,
      cd: '/a',
      worktree: undefined,
      newTask: true,
    });
    const fork = d(
      '<fork-workflow next="N" item="x">..\\w</fork-workflow><fork next="N">LOCAL</fork>',
    );
    assert.equal(fork.kind, 'fork');
    if (fork.kind !== 'fork') return;
    assert.deepEqual(
      fork.workers.map((w) => [w.target, w.workflow, w.attributes]),
      [
        ['..\\w', { spec: '..\\w' }, { item: 'x' }],
        ['LOCAL', undefined, {}],
      ],
    );
  });

  it('refuses cd on <call-workflow>, a missing return or next, an empty specifier, and a mix with anything but <goto> and forks', () => {
    const cases: Array<[string, RegExp]> = [
      ['<call-workflow return="R" cd="x">w</call-workflow>', /<call-workflow> cannot have cd="x"/],
      ['<function-workflow>w</function-workflow>', /needs a return="STATE" attribute/],
      [
        '<fork-workflow>w</fork-workflow>',
        /<fork-workflow>w<\/fork-workflow> needs a next="STATE" attribute \(where the parent continues\), or a <goto> beside it/,
      ],
      ['<fork-workflow next="A">w</fork-workflow><goto>B</goto>', /disagree \(A, B\)/],
      [
        '<fork-workflow next="A">w</fork-workflow><reset-workflow>v</reset-workflow>',
        /exactly one is allowed, or several <fork>\/<fork-workflow> with at most one <goto>/,
      ],
      ['<call-workflow return="R">  </call-workflow>', /<call-workflow> names no workflow/],
    ];
    for (const [text, pattern] of cases)
      assert.throws(
        () => d(text),
        (err: unknown) =>
          err instanceof RaymondError && pattern.test(err.message) && err.file === F,
        text,
      );
  });

  it('checks return and next as state names, but not the specifier', () => {
    assert.throws(() => d('<call-workflow return="../R">w</call-workflow>'), /is a path/);
    assert.doesNotThrow(() => d('<call-workflow return="R">../../a/b.zip/C</call-workflow>'));
  });
});

describe('decide: <ask>', () => {
  it('reads next, the question (trimmed, tags in it are text), timeout and timeout_next, and keeps file attributes', () => {
    assert.deepEqual(
      d(
        'I looked. <ask next="GO" timeout="2d" timeout_next="LATE" display_files="out/r.pdf">\n  Approve <result>x</result>?\n</ask>',
      ),
      {
        kind: 'ask',
        next: 'GO',
        prompt: 'Approve <result>x</result>?',
        timeoutMs: 172_800_000,
        timeoutNext: 'LATE',
        files: { display_files: 'out/r.pdf' },
      },
    );
  });

  it('stands alone: not with a fork or a goto', () => {
    assert.throws(() => d('<ask next="A">q</ask><goto>B</goto>'), /exactly one is allowed/);
  });
});

describe('decide: <join>', () => {
  const code = (text: string) => {
    try {
      d(text);
    } catch (err) {
      assert.ok(err instanceof RaymondError);
      return `${err.code}: ${err.message}`;
    }
    return 'no error';
  };

  it('alone, the agent waits at NEXT with no new workers', () => {
    assert.deepEqual(d('<join>COLLECT.sh</join>'), {
      kind: 'fork',
      next: 'COLLECT.sh',
      workers: [],
      join: true,
    });
  });

  it('beside forks, it is their continuation: in place of next, or agreeing with it', () => {
    const both = d(
      '<fork item="1">W.sh</fork><fork item="2" next="C.sh">W.sh</fork><join>C.sh</join>',
    );
    assert.equal(both.kind, 'fork');
    if (both.kind !== 'fork') return;
    assert.equal(both.join, true);
    assert.equal(both.next, 'C.sh');
    assert.deepEqual(
      both.workers.map((w) => w.attributes.item),
      ['1', '2'],
    );
    assert.match(
      code('<fork next="A.sh">W.sh</fork><join>C.sh</join>'),
      /^ERR_TAG_PARSE: the forks' next states and the <join> disagree/,
    );
  });

  it('refuses a join with a goto, two joins, a join beside another tag, and attributes', () => {
    assert.match(
      code('<fork>W.sh</fork><join>C.sh</join><goto>C.sh</goto>'),
      /^ERR_TAG_MULTIPLE: .*at most one <goto> or <join>/,
    );
    assert.match(code('<join>C.sh</join><join>C.sh</join>'), /^ERR_TAG_MULTIPLE/);
    assert.match(code('<join>C.sh</join><result>x</result>'), /^ERR_TAG_MULTIPLE/);
    assert.match(code('<join input="x">C.sh</join>'), /^ERR_TAG_PARSE: <join> takes no attributes/);
    assert.match(code('<join>../C.sh</join>'), /^ERR_TARGET_INVALID/);
  });
});
