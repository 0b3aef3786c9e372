import { RaymondError } from '../errors.js';

/** The six transition tags of the workflow language. */
export const TRANSITION_TAGS = ['goto', 'reset', 'call', 'function', 'fork', 'result'] as const;
export type TagName = (typeof TRANSITION_TAGS)[number];

/** One transition tag as written in an output. */
export interface ParsedTag {
  tag: TagName;
  /** The tag body: a state name, or the payload of `<result>` exactly as written. */
  body: string;
  attributes: Record<string, string>;
}

/** Everything Raymond reads from one state's output. */
export interface ParsedOutput {
  tags: ParsedTag[];
  /** Contents of `<print>` tags, in order: shown to the user, never transitions. */
  prints: string[];
}

/** The names of every tag Raymond reads (the transitions and `<print>`), as a regex alternation. */
export const TAG_NAME_PATTERN = [...TRANSITION_TAGS, 'print'].join('|');

// One opening tag of the language (or <print>), with its raw attribute text.
const OPEN_TAG = new RegExp(`<(${TAG_NAME_PATTERN})((?:\\s[^<>]*?)?)\\s*>`, 'g');
const ATTRIBUTE = /\s*([A-Za-z_][\w.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/y;

/** Attributes whose values name states, so they get the same path check as a target. */
const STATE_ATTRIBUTES: Partial<Record<TagName, string[]>> = {
  call: ['return'],
  function: ['return'],
  fork: ['next'],
};

function parseAttributes(raw: string, tag: string, source: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  ATTRIBUTE.lastIndex = 0;
  let rest = raw;
  while (rest.trim() !== '') {
    ATTRIBUTE.lastIndex = 0;
    const m = ATTRIBUTE.exec(rest);
    if (!m) {
      throw new RaymondError('ERR_TAG_PARSE', `malformed attributes in <${tag}${raw}>: write name="value" or name='value'`, { file: source });
    }
    const name = m[1]!;
    if (name in attributes) {
      throw new RaymondError('ERR_TAG_PARSE', `attribute "${name}" given twice in <${tag}>`, { file: source });
    }
    attributes[name] = m[2] ?? m[3] ?? '';
    rest = rest.slice(ATTRIBUTE.lastIndex);
  }
  return attributes;
}

/**
 * Checks that a state reference is a bare file name. Runs before any file is
 * touched, so `../x` or `a/b` can never reach the file system.
 */
export function checkStateName(name: string, what: string, source: string): void {
  if (name.trim() === '') {
    throw new RaymondError('ERR_TARGET_INVALID', `${what} is empty`, { file: source });
  }
  if (name.includes('/') || name.includes('\\')) {
    throw new RaymondError('ERR_TARGET_INVALID', `${what} "${name}" is a path; targets must be file names in the workflow's folder (no / or \\)`, { file: source });
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
  OPEN_TAG.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = OPEN_TAG.exec(text)) !== null) {
    const name = m[1] as TagName | 'print';
    const close = `</${name}>`;
    const bodyStart = m.index + m[0].length;
    const end = text.indexOf(close, bodyStart);
    if (end < bodyStart) {
      throw new RaymondError('ERR_TAG_PARSE', `<${name}> is never closed with ${close}`, { file: source });
    }
    const body = text.slice(bodyStart, end);
    OPEN_TAG.lastIndex = end + close.length;
    if (name === 'print') {
      prints.push(body.trim());
      continue;
    }
    const attributes = parseAttributes(m[2] ?? '', name, source);
    if (name === 'result') {
      tags.push({ tag: name, body, attributes });
      continue;
    }
    const target = body.trim();
    checkStateName(target, `<${name}> target`, source);
    for (const attr of STATE_ATTRIBUTES[name] ?? []) {
      if (attr in attributes) checkStateName(attributes[attr]!, `<${name}> ${attr}="..."`, source);
    }
    tags.push({ tag: name, body: target, attributes });
  }
  return { tags, prints };
}
