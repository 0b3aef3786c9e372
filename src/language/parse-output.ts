import { RaymondError } from '../errors.js';
import { isWorkflowTag, nextOpenTag, type OpenTag, type TagName } from './tag-scanner.js';

export { TRANSITION_TAGS, isWorkflowTag, type TagName } from './tag-scanner.js';

/** One transition tag as written in an output. */
export interface ParsedTag {
  tag: TagName;
  /** The tag body: a state name, a workflow specifier (cross-workflow tags), or the payload of `<result>` or question of `<ask>` exactly as written. */
  body: string;
  /** A null-prototype object: attribute names are only ever its own keys. */
  attributes: Record<string, string>;
}

/** Everything Raymond reads from one state's output. */
export interface ParsedOutput {
  tags: ParsedTag[];
  /** Contents of `<print>` tags, in order: shown to the user, never transitions. */
  prints: string[];
}

/** Attributes whose values name states, so they get the same path check as a target; each tag needs its own to work. */
export const STATE_ATTRIBUTES: Partial<Record<TagName, string[]>> = {
  call: ['return'],
  function: ['return'],
  fork: ['next'],
  'call-workflow': ['return'],
  'function-workflow': ['return'],
  'fork-workflow': ['next'],
  ask: ['next', 'timeout_next'],
};

/**
 * Checks that a state reference is a bare file name. Runs before any file is
 * touched, so `../x` or `a/b` can never reach the file system.
 */
export function checkStateName(name: string, what: string, source: string): void {
  if (name.trim() === '') {
    throw new RaymondError('ERR_TARGET_INVALID', `${what} is empty`, { file: source });
  }
  if (name.includes('/') || name.includes('\\')) {
    throw new RaymondError(
      'ERR_TARGET_INVALID',
      `${what} "${name}" is a path; targets must be file names in the workflow's folder (no / or \\)`,
      { file: source },
    );
  }
}

/**
 * Finds every transition tag and `<print>` in an output. Tags may sit anywhere
 * in the text; a `<result>` payload is opaque, so tags inside it are part of it.
 * `source` names the state that produced the output, for error messages.
 */
export function parseOutput(text: string, source: string): ParsedOutput {
  const tags: ParsedTag[] = [];
  const prints: string[] = [];
  let open: OpenTag | undefined;
  let pos = 0;
  while ((open = nextOpenTag(text, pos)) !== undefined) {
    const name = open.name;
    const close = `</${name}>`;
    const end = text.indexOf(close, open.end);
    if (end < 0) {
      throw new RaymondError('ERR_TAG_PARSE', `<${name}> is never closed with ${close}`, {
        file: source,
      });
    }
    const body = text.slice(open.end, end);
    pos = end + close.length;
    if (name === 'print') {
      prints.push(body.trim());
      continue;
    }
    if (open.error !== undefined)
      throw new RaymondError('ERR_TAG_PARSE', open.error, { file: source });
    const attributes = open.attributes;
    // A result's payload and an ask's question are opaque: tags written inside them are text.
    if (name === 'result' || name === 'ask') {
      for (const attr of STATE_ATTRIBUTES[name] ?? []) {
        if (Object.hasOwn(attributes, attr))
          checkStateName(attributes[attr]!, `<${name}> ${attr}="..."`, source);
      }
      tags.push({ tag: name, body, attributes });
      continue;
    }
    const target = body.trim();
    // A workflow specifier is a path by design; where it may lead is settled when it is opened.
    if (isWorkflowTag(name)) {
      if (target === '')
        throw new RaymondError(
          'ERR_TARGET_INVALID',
          `<${name}> names no workflow (write a folder, file, .zip or .yaml between the tags)`,
          { file: source },
        );
    } else {
      checkStateName(target, `<${name}> target`, source);
    }
    for (const attr of STATE_ATTRIBUTES[name] ?? []) {
      if (Object.hasOwn(attributes, attr))
        checkStateName(attributes[attr]!, `<${name}> ${attr}="..."`, source);
    }
    tags.push({ tag: name, body: target, attributes });
  }
  return { tags, prints };
}
