import { decide } from './decide.js';
import type { Decision } from '../../machines/types.js';
import type { AllowedTransition } from './frontmatter.js';
import { parseOutput, type ParsedTag } from './parse-output.js';
import { checkPolicy, implicitTag } from './policy.js';
import { renderTemplate } from './render.js';

/** Read the transition out of a state's output. */
export interface InterpretTask {
  op: 'interpret';
  output: string;
  file: string;
  /** `allowed_transitions` of a markdown state, enforced when present. */
  allowed?: AllowedTransition[];
  /** `force_implicit: true`: the single allowed transition, whatever the reply says. */
  forceImplicit?: boolean;
  /**
   * `{{workflow_id}}`, `{{agent_id}}`, `{{task_folder}}`: rendered in the
   * `input` of an implicit transition, as `ray` does. A tag the reply wrote
   * passes its `input` as written.
   */
  implicitVariables?: Record<string, string>;
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
  if (forced)
    return {
      decision: decide([withVariables(forced, task.implicitVariables)], task.file),
      prints: printsOf(task.output, task.file),
    };
  const parsed = parseOutput(task.output, task.file);
  let tags = parsed.tags;
  if (task.allowed) {
    const implicit = tags.length === 0 ? implicitTag(task.allowed) : undefined;
    if (implicit) tags = [implicit];
    checkPolicy(tags, task.allowed, task.file);
    // After the policy check, which compares the entry's input as written.
    if (implicit) tags = [withVariables(implicit, task.implicitVariables)];
  }
  return { decision: decide(tags, task.file), prints: parsed.prints };
}

/** An implicit transition's tag with the run's variables rendered in its `input`, as `ray` does. */
function withVariables(tag: ParsedTag, variables: Record<string, string> | undefined): ParsedTag {
  if (tag.attributes.input === undefined || !variables) return tag;
  return {
    ...tag,
    attributes: Object.assign(Object.create(null) as Record<string, string>, tag.attributes, {
      input: renderTemplate(tag.attributes.input, variables),
    }),
  };
}

/** The `<print>`s of a reply whose tags do not count (force_implicit): a tag that does not parse is ignored like the rest. */
function printsOf(output: string, file: string): string[] {
  try {
    return parseOutput(output, file).prints;
  } catch {
    return [];
  }
}
