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
    assert.deepEqual(d('<reset task="new">N</reset>'), { kind: 'reset', target: 'N', input: undefined, cd: undefined, worktree: undefined, newTask: true });
    assert.equal((d('<reset>N</reset>') as { newTask?: boolean }).newTask, undefined);
  });

  it('task="inherit" on <fork> shares the parent\'s folder, and task is never a worker variable', () => {
    const fork = d('<fork next="N" task="inherit" item="x">W</fork><fork next="N" task="new">W</fork>');
    assert.ok(fork.kind === 'fork');
    assert.equal(fork.workers[0]!.inheritTask, true);
    assert.deepEqual(fork.workers[0]!.attributes, { item: 'x' });
    assert.equal(fork.workers[1]!.inheritTask, undefined);
    assert.ok(RESERVED_FORK_ATTRIBUTES.has('task'));
  });

  it('refuses any other value with one ERR_TAG_PARSE line naming the values the tag takes', () => {
    const cases: Array<[string, string]> = [
      ['<reset task="inherit">N</reset>', '<reset> task="inherit": expected task="new"'],
      ['<fork next="N" task="refactor">W</fork>', '<fork> task="refactor": expected task="new" or task="inherit"'],
    ];
    for (const [text, message] of cases) {
      assert.throws(() => d(text), (err: unknown) => err instanceof RaymondError && err.code === 'ERR_TAG_PARSE' && err.message === message && err.file === F);
    }
  });
});

describe('interpretOutput: variables in an implicit transition\'s input', () => {
  const allowed = [{ tag: 'goto' as const, target: 'NEXT', attributes: { input: '{{task_folder}}/plan.md by {{agent_id}} of {{workflow_id}} {{item}}' } }];
  const implicitVariables = { workflow_id: 'wf', agent_id: 'main', task_folder: '/p/t' };

  it('renders {{workflow_id}}, {{agent_id}} and {{task_folder}} when the reply had no tag', () => {
    const { decision } = interpretOutput({ output: 'done', file: F, allowed, implicitVariables });
    assert.deepEqual(decision, { kind: 'goto', target: 'NEXT', input: '/p/t/plan.md by main of wf {{item}}' });
  });

  it('passes a written tag\'s input as written', () => {
    const { decision } = interpretOutput({ output: '<goto input="{{task_folder}}/plan.md by {{agent_id}} of {{workflow_id}} {{item}}">NEXT</goto>', file: F, allowed, implicitVariables });
    assert.deepEqual(decision, { kind: 'goto', target: 'NEXT', input: '{{task_folder}}/plan.md by {{agent_id}} of {{workflow_id}} {{item}}' });
  });
});
