import { decide } from './decide.js';
import type { Decision } from '../../machines/types.js';
import type { AllowedTransition } from './frontmatter.js';
import { parseOutput } from './parse-output.js';
import { checkPolicy, implicitTag } from './policy.js';

/** Read the transition out of a state's output. */
export interface InterpretTask {
  op: 'interpret';
  output: string;
  file: string;
  /** `allowed_transitions` of a markdown state, enforced when present. */
  allowed?: AllowedTransition[] | undefined;
  /** `force_implicit: true`: the single allowed transition, whatever the reply says. */
  forceImplicit?: boolean | undefined;
}

export interface Interpretation {
  decision: Decision;
  prints: string[];
}

/**
 * Reads the transition out of a state's output: the tags, the policy of a
 * markdown state (an implicit transition when there is no tag), the
 * decision. Loads no YAML, so it may run on the main thread at no memory cost.
 */
export function interpretOutput(task: Omit<InterpretTask, 'op'>): Interpretation {
  const forced = task.forceImplicit && task.allowed ? implicitTag(task.allowed) : undefined;
  if (forced) return { decision: decide([forced], task.file), prints: printsOf(task.output, task.file) };
  const parsed = parseOutput(task.output, task.file);
  let tags = parsed.tags;
  if (task.allowed) {
    const implicit = tags.length === 0 ? implicitTag(task.allowed) : undefined;
    if (implicit) tags = [implicit];
    checkPolicy(tags, task.allowed, task.file);
  }
  return { decision: decide(tags, task.file), prints: parsed.prints };
}

/** The `<print>`s of a reply whose tags do not count (force_implicit): a tag that does not parse is ignored like the rest. */
function printsOf(output: string, file: string): string[] {
  try {
    return parseOutput(output, file).prints;
  } catch {
    return [];
  }
}
