import type { Frame, FrameNode, FrameStack } from './types.js';

/**
 * The most return frames an agent may have. A `<call>` or `<function>` that
 * would push one more fails the agent (src/runtime/resolve-decision.ts).
 * Every step costs the same at any depth, so the bound is not for speed: it
 * stops a recursion that never ends before it fills memory and the snapshot
 * (some 100 bytes a frame in each), and keeps the snapshot of a legitimately
 * deep run around 1 MB.
 */
export const MAX_STACK_DEPTH = 10_000;

/** How many frames a stack holds. */
export function stackDepth(stack: FrameStack): number {
  return stack?.depth ?? 0;
}

/** The stack with `frame` on top; `stack` itself is unchanged and shared. */
export function pushFrame(stack: FrameStack, frame: Frame): FrameNode {
  return { frame, below: stack, depth: stackDepth(stack) + 1 };
}

/** The stack as the state file holds it: bottom frame first. */
export function stackToArray(stack: FrameStack): Frame[] {
  const frames = new Array<Frame>(stackDepth(stack));
  for (let node = stack; node !== null; node = node.below) frames[node.depth - 1] = node.frame;
  return frames;
}

/** A stack from the state file's array (bottom frame first). */
export function stackFromArray(frames: readonly Frame[]): FrameStack {
  let stack: FrameStack = null;
  for (const frame of frames) stack = pushFrame(stack, frame);
  return stack;
}

/**
 * How to get from `before` to `after`: keep the bottom `keep` frames of
 * `before`, then push `push` (bottom first). Both stacks share the nodes
 * below the point where they part, so the cost is the number of frames
 * pushed or popped in between, not the depth: one frame per step.
 */
export function stackChange(
  before: FrameStack,
  after: FrameStack,
): { keep: number; push: Frame[] } {
  const push: Frame[] = [];
  let a = before;
  let b = after;
  while (stackDepth(a) > stackDepth(b)) a = a!.below;
  while (stackDepth(b) > stackDepth(a)) {
    push.push(b!.frame);
    b = b!.below;
  }
  while (a !== b) {
    push.push(b!.frame);
    a = a!.below;
    b = b!.below;
  }
  return { keep: stackDepth(a), push: push.reverse() };
}
