import { RaymondError } from '../errors.js';
import type { AllowedTransition } from './frontmatter.js';
import { STATE_ATTRIBUTES, isWorkflowTag, type ParsedTag } from './parse-output.js';

const STATE_EXT = /\.(md|sh|bat|ps1)$/;
/** Attributes that name states, compared with the same extension leniency as targets. */
const STATE_ATTRS = new Set(['return', 'next', 'timeout_next']);

/** A policy name without extension matches `NAME.md` or `NAME.sh`, and the other way round. */
function sameState(emitted: string, allowed: string): boolean {
  if (emitted === allowed) return true;
  if (!STATE_EXT.test(allowed)) return emitted.replace(STATE_EXT, '') === allowed;
  if (!STATE_EXT.test(emitted)) return allowed.replace(STATE_EXT, '') === emitted;
  return false;
}

/** A workflow specifier as compared: `/` for `\\`, no trailing slash (`../w/` is `../w`). */
function specKey(spec: string): string {
  return spec
    .trim()
    .replace(/\\/g, '/')
    .replace(/(.)\/+$/, '$1');
}

/** Whether an emitted tag's body is the entry's target: a state, or for a cross-workflow tag a workflow. */
function sameTarget(tag: ParsedTag, target: string): boolean {
  return isWorkflowTag(tag.tag)
    ? specKey(tag.body) === specKey(target)
    : sameState(tag.body, target);
}

/** Whether an emitted tag has an entry's tag, target and fixed attribute values. */
function sameShape(tag: ParsedTag, entry: AllowedTransition): boolean {
  if (tag.tag !== entry.tag) return false;
  if (entry.target !== undefined && tag.tag !== 'result' && !sameTarget(tag, entry.target))
    return false;
  if (entry.payload !== undefined && tag.body.trim() !== entry.payload.trim()) return false;
  return Object.entries(entry.attributes).every(([k, v]) => {
    const got = tag.attributes[k];
    return got !== undefined && (STATE_ATTRS.has(k) ? sameState(got, v) : got === v);
  });
}

/**
 * The attributes of an emitted tag that an entry's `attributes:` list does
 * not let through: not listed, not fixed by the entry, and not the one the
 * tag needs (`next`, `return`). None when the entry has no list.
 */
export function unlistedAttributes(tag: ParsedTag, entry: AllowedTransition): string[] {
  const listed = entry.allowedAttributes;
  if (listed === undefined) return [];
  const needed = STATE_ATTRIBUTES[tag.tag] ?? [];
  return Object.keys(tag.attributes).filter(
    (k) => !listed.includes(k) && !Object.hasOwn(entry.attributes, k) && !needed.includes(k),
  );
}

/** Whether an emitted tag is what an `allowed_transitions` entry allows. */
export function matches(tag: ParsedTag, entry: AllowedTransition): boolean {
  return sameShape(tag, entry) && unlistedAttributes(tag, entry).length === 0;
}

/** How an allowed entry is written as a tag, for reminders and messages; listed attributes as `name="..."`. */
export function formatAllowed(entry: AllowedTransition): string {
  const listed = (entry.allowedAttributes ?? []).filter((k) => !Object.hasOwn(entry.attributes, k));
  const attrs = [...Object.entries(entry.attributes), ...listed.map((k) => [k, '...'])]
    .map(([k, v]) => ` ${k}="${v}"`)
    .join('');
  if (entry.tag === 'result') return `<result${attrs}>${entry.payload ?? '...'}</result>`;
  if (entry.tag === 'ask') return `<ask${attrs}>...</ask>`;
  return `<${entry.tag}${attrs}>${entry.target ?? '...'}</${entry.tag}>`;
}

/** Longest `<result>` payload a message shows; a longer one (or one of several lines) is elided. */
const SHOWN_PAYLOAD = 40;

/** How an emitted tag is shown in messages: a short one-line `<result>` payload as written (it may be what a fixed payload refused), else `...`. */
export function formatTag(tag: ParsedTag): string {
  const attrs = Object.entries(tag.attributes)
    .map(([k, v]) => ` ${k}="${v}"`)
    .join('');
  if (tag.tag === 'ask') return `<ask${attrs}>...</ask>`;
  if (tag.tag !== 'result') return `<${tag.tag}${attrs}>${tag.body}</${tag.tag}>`;
  const payload = tag.body.trim();
  return `<result${attrs}>${payload.length <= SHOWN_PAYLOAD && !payload.includes('\n') ? payload : '...'}</result>`;
}

/**
 * The tag to assume when none was emitted: the single allowed entry, unless
 * it is a `<result>` whose payload the reply must give (one with a fixed
 * `payload` is assumed too, as in `ray`).
 */
export function implicitTag(allowed: AllowedTransition[]): ParsedTag | undefined {
  if (allowed.length !== 1) return undefined;
  const only = allowed[0]!;
  // A question cannot be implied: the reply must ask it.
  if (only.tag === 'ask') return undefined;
  if (only.tag === 'result' && only.payload === undefined) return undefined;
  // A cross-workflow entry without a target lets the reply name the workflow: it must write the tag.
  if (only.tag !== 'result' && only.target === undefined) return undefined;
  const body = only.tag === 'result' ? only.payload! : only.target!;
  return {
    tag: only.tag,
    body,
    attributes: Object.assign(Object.create(null) as Record<string, string>, only.attributes),
  };
}

/**
 * Refuses any emitted tag that no allowed entry matches, saying which
 * attributes were too many when that is all that kept it out.
 */
export function checkPolicy(tags: ParsedTag[], allowed: AllowedTransition[], file: string): void {
  for (const tag of tags) {
    if (allowed.some((entry) => matches(tag, entry))) continue;
    const near = allowed.find((entry) => sameShape(tag, entry));
    const why = near
      ? `: attributes not in the entry's attributes list: ${unlistedAttributes(tag, near).join(', ')}`
      : '';
    throw new RaymondError(
      'ERR_POLICY',
      `emitted ${formatTag(tag)}, which allowed_transitions does not allow${why} (allowed: ${allowed.map(formatAllowed).join(', ')})`,
      { file },
    );
  }
}

/**
 * The text appended to the prompt when a reply broke the rules: it says what
 * went wrong and lists the allowed tags exactly.
 */
export function reminder(allowed: AllowedTransition[], problem: string): string {
  return [
    '',
    '',
    '---',
    `Reminder: your previous reply could not be used (${problem}).`,
    'Finish this step again, and end your reply with exactly one of these transition tags:',
    ...allowed.map((e) => `- ${formatAllowed(e)}`),
  ].join('\n');
}
