import { decide } from './decide.js';
import { RaymondError } from '../errors.js';
import type { Decision } from '../../machines/types.js';
import type { AllowedTransition } from './frontmatter.js';
import { misspeltTagMessage, misspeltTags } from './misspelt-tags.js';
import { parseOutput, type ParsedTag } from './parse-output.js';
import { checkPolicy, formatAllowed, implicitTag } from './policy.js';
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
  try {
    const parsed = parseOutput(task.output, task.file);
    let tags = parsed.tags;
    if (task.allowed) {
      const implicit = tags.length === 0 ? implicitTag(task.allowed) : undefined;
      if (implicit) tags = [implicit];
      if (tags.length === 0) throw noTagAllowed(task.allowed, task.file);
      checkPolicy(tags, task.allowed, task.file);
      // After the policy check, which compares the entry's input as written.
      if (implicit) tags = [withVariables(implicit, task.implicitVariables)];
    }
    return { decision: decide(tags, task.file), prints: parsed.prints };
  } catch (err) {
    throw misspeltInstead(err, task.output);
  }
}

/** A reply without a tag, in a state with allowed_transitions: what it may end with, and nothing else. */
function noTagAllowed(allowed: AllowedTransition[], file: string): RaymondError {
  return new RaymondError(
    'ERR_TAG_MISSING',
    `output has no transition tag (expected ${allowed.map(formatAllowed).join(' or ')})`,
    { file },
  );
}

/**
 * A reply that cannot be used because a tag is misspelt (`<jion>`) says so, rather than what the
 * typo left behind (a fork with nowhere to continue, no tag at all); same code, so a reminder
 * still follows.
 */
function misspeltInstead(err: unknown, output: string): unknown {
  const typo = err instanceof RaymondError ? misspeltTags(output)[0] : undefined;
  if (!typo || !(err instanceof RaymondError)) return err;
  return new RaymondError(err.code, misspeltTagMessage(typo), { file: err.file });
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
