import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  pushFrame,
  stackChange,
  stackDepth,
  stackFromArray,
  stackToArray,
} from '../../machines/frame-stack.js';
import type { Frame, FrameStack } from '../../machines/types.js';

const f = (state: string): Frame => ({ state, session: null });

function deep(n: number): FrameStack {
  let stack: FrameStack = null;
  for (let i = 0; i < n; i++) stack = pushFrame(stack, f(`R${i}`));
  return stack;
}

describe('frame stack', () => {
  it('pushes onto a shared stack without changing it, and pops by taking what is below', () => {
    const one = pushFrame(null, f('A'));
    const two = pushFrame(one, f('B'));
    assert.equal(stackDepth(null), 0);
    assert.equal(stackDepth(two), 2);
    assert.equal(two.below, one, 'the frames below are shared, not copied');
    assert.deepEqual(stackToArray(one), [f('A')], 'pushing left the stack below unchanged');
    assert.deepEqual(
      stackToArray(two),
      [f('A'), f('B')],
      'bottom frame first, as the state file has it',
    );
  });

  it('round-trips the state file array', () => {
    const frames = [f('A'), { state: 'B', session: 's1' }, f('C')];
    assert.deepEqual(stackToArray(stackFromArray(frames)), frames);
    assert.equal(stackFromArray([]), null);
    assert.deepEqual(stackToArray(null), []);
  });

  it('tells a push, a pop, a pop then a push, and no change apart, as frames kept and pushed', () => {
    const base = deep(5);
    const pushed = pushFrame(base, f('X'));
    const popped = base!.below;
    const replaced = pushFrame(popped, f('Y'));
    assert.deepEqual(stackChange(base, pushed), { keep: 5, push: [f('X')] });
    assert.deepEqual(stackChange(base, popped), { keep: 4, push: [] });
    assert.deepEqual(stackChange(base, replaced), { keep: 4, push: [f('Y')] });
    assert.deepEqual(stackChange(base, base), { keep: 5, push: [] });
    assert.deepEqual(stackChange(null, stackFromArray([f('A'), f('B')])), {
      keep: 0,
      push: [f('A'), f('B')],
    });
    assert.deepEqual(stackChange(base, null), { keep: 0, push: [] });
  });

  it('describes one step on a 100,000-deep stack with one frame, not the whole stack', () => {
    const base = deep(100_000);
    const after = pushFrame(base!.below, f('Z'));
    assert.deepEqual(stackChange(base, after), { keep: 99_999, push: [f('Z')] });
  });

  it('applied to the array of the stack before, a change gives the array of the stack after', () => {
    const before = deep(6);
    const after = pushFrame(pushFrame(before!.below!.below, f('P')), f('Q'));
    const { keep, push } = stackChange(before, after);
    assert.deepEqual([...stackToArray(before).slice(0, keep), ...push], stackToArray(after));
  });
});
