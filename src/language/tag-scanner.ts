/** The cross-workflow tags: their body names another workflow, not a state of this one. */
export const WORKFLOW_TAGS = [
  'call-workflow',
  'function-workflow',
  'fork-workflow',
  'reset-workflow',
] as const;
export type WorkflowTagName = (typeof WORKFLOW_TAGS)[number];

/** The transition tags of the workflow language: those of one workflow (`<ask>` waits for a person), then the cross-workflow ones. */
export const TRANSITION_TAGS = [
  'goto',
  'reset',
  'call',
  'function',
  'fork',
  'join',
  'result',
  'ask',
  ...WORKFLOW_TAGS,
] as const;
export type TagName = (typeof TRANSITION_TAGS)[number];

/** Whether a tag's body is a workflow specifier (a cross-workflow tag). */
export function isWorkflowTag(tag: string): tag is WorkflowTagName {
  return (WORKFLOW_TAGS as readonly string[]).includes(tag);
}

/** What a transition tag is, for the places that treat tags alike rather than one by one. */
export interface TagTraits {
  /** A callee or a worker runs in another frame: this frame goes on at `return` or `next` (or ends). */
  leavesFrame: boolean;
  /** Pushes a return frame (the callee's `<result>` comes back). */
  calls: boolean;
  /** Forks workers. */
  forks: boolean;
  /** Takes `task`, `worktree`, `base` and `sparse`: a folder of its own for the agent or its worker. */
  places: boolean;
  /** Drawn dotted in diagrams: the agent starts afresh, or a worker starts. */
  dotted: boolean;
}

const NONE: TagTraits = {
  leavesFrame: false,
  calls: false,
  forks: false,
  places: false,
  dotted: false,
};
const CALL: TagTraits = { ...NONE, leavesFrame: true, calls: true };
const FORK: TagTraits = { ...NONE, leavesFrame: true, forks: true, places: true, dotted: true };
const RESET: TagTraits = { ...NONE, places: true, dotted: true };

/**
 * Every transition tag's traits: the table lint, reachability and diagrams
 * read. Its type names every tag, so a new tag is a compile error here until
 * its entry is written (docs/architecture.md, "Adding a transition tag").
 */
export const TAG_TRAITS: { readonly [T in TagName]: TagTraits } = {
  goto: NONE,
  reset: RESET,
  call: CALL,
  function: CALL,
  fork: FORK,
  join: NONE,
  result: { ...NONE, leavesFrame: true },
  ask: NONE,
  'call-workflow': CALL,
  'function-workflow': CALL,
  'fork-workflow': FORK,
  'reset-workflow': RESET,
};

/** The tags with a trait. */
export function tagsWith(trait: keyof TagTraits): TagName[] {
  return TRANSITION_TAGS.filter((t) => TAG_TRAITS[t][trait]);
}

/** Every tag Raymond reads: the transitions and `<print>`. */
export const TAG_NAMES: readonly (TagName | 'print')[] = [...TRANSITION_TAGS, 'print'];

/** One opening tag found in a text, e.g. `<goto input="x">`. */
export interface OpenTag {
  name: TagName | 'print';
  /** Index of its `<`. */
  start: number;
  /** Index just past its `>`: where the body starts. */
  end: number;
  /**
   * Its attributes, in a null-prototype object so that names such as
   * `__proto__` or `toString` are ordinary keys. Empty when `error` is set.
   */
  attributes: Record<string, string>;
  /** Why the attributes do not parse (the caller decides whether that matters). */
  error?: string;
}

const ATTRIBUTE_NAME = /[A-Za-z_][\w.-]*/y;
/** A whole attribute name, as a JSON Schema pattern (frontmatter-schema.ts checks an entry's `attributes:` list with it). */
export const ATTRIBUTE_NAME_PATTERN = `^(?:${ATTRIBUTE_NAME.source})$`;

const SPACE = /\s*/y;
// The nearest `<` or `>` decides what a malformed attribute list was: prose (`<`) or a broken tag (`>`).
const ANGLE = /[<>]/g;

/**
 * Finds the first opening tag at or after `from`, in time linear in the text
 * it looks at. The syntax is `<NAME`, then attributes `name="value"` or
 * `name='value'` separated by whitespace, then `>`. A value runs to its
 * closing quote, so it may hold `<`, `>` and newlines, and a tag written inside
 * a value is never a tag. `<NAME` followed by anything else is prose unless a
 * `>` comes before the next `<`: then it is a tag whose attributes are
 * malformed (`error`).
 *
 * Linear over a whole scan: a candidate that turns out to be prose is left at
 * the `<` that ended it, which lies past its quoted values, so no character is
 * read by two failed candidates (a tag inside such a quoted stretch is skipped
 * with it); and a quote that never closes is searched for to the end of the
 * text at most once, since no later quote of that kind exists.
 */
export function nextOpenTag(text: string, from: number): OpenTag | undefined {
  let pos = from;
  for (;;) {
    const lt = text.indexOf('<', pos);
    if (lt < 0) return undefined;
    const name = tagNameAt(text, lt + 1);
    if (name === undefined) {
      pos = lt + 1;
      continue;
    }
    const found = readAttributes(text, lt, lt + 1 + name.length, name);
    if (typeof found !== 'number') return found;
    pos = found;
  }
}

function tagNameAt(text: string, at: number): OpenTag['name'] | undefined {
  for (const name of TAG_NAMES) {
    if (!text.startsWith(name, at)) continue;
    const after = text[at + name.length];
    if (after === '>' || (after !== undefined && /\s/.test(after))) return name;
  }
  return undefined;
}

/** The tag starting at `start`, or the index to resume scanning at when it is prose. */
function readAttributes(
  text: string,
  start: number,
  afterName: number,
  name: OpenTag['name'],
): OpenTag | number {
  const attributes: Record<string, string> = Object.create(null) as Record<string, string>;
  let duplicate: string | undefined;
  let pos = afterName;
  for (;;) {
    pos = skipSpace(text, pos);
    if (text[pos] === '>') {
      if (duplicate === undefined) return { name, start, end: pos + 1, attributes };
      return {
        name,
        start,
        end: pos + 1,
        attributes: Object.create(null) as Record<string, string>,
        error: `attribute "${duplicate}" given twice in <${name}>`,
      };
    }
    ATTRIBUTE_NAME.lastIndex = pos;
    const attr = ATTRIBUTE_NAME.exec(text)?.[0];
    if (attr === undefined) return malformed(text, start, pos, name, undefined);
    const eq = skipSpace(text, pos + attr.length);
    if (text[eq] !== '=') return malformed(text, start, eq, name, undefined);
    const open = skipSpace(text, eq + 1);
    const quote = text[open];
    if (quote !== '"' && quote !== "'") return malformed(text, start, open, name, undefined);
    const close = text.indexOf(quote, open + 1);
    if (close < 0)
      return malformed(text, start, open + 1, name, `the value of ${attr} has no closing ${quote}`);
    if (Object.hasOwn(attributes, attr)) duplicate ??= attr;
    attributes[attr] = text.slice(open + 1, close);
    pos = close + 1;
  }
}

/**
 * Attributes that do not parse from `at` on: a broken tag when a `>` comes
 * before any `<`, else prose, resumed at that `<` (nothing before it can start a tag).
 */
function malformed(
  text: string,
  start: number,
  at: number,
  name: OpenTag['name'],
  why: string | undefined,
): OpenTag | number {
  ANGLE.lastIndex = at;
  const angle = ANGLE.exec(text);
  if (angle === null) return text.length;
  if (angle[0] === '<') return angle.index;
  const end = angle.index + 1;
  const hint = why ?? `write name="value" or name='value'`;
  return {
    name,
    start,
    end,
    attributes: Object.create(null) as Record<string, string>,
    error: `malformed attributes in ${excerpt(text, start, end)}: ${hint}`,
  };
}

function skipSpace(text: string, pos: number): number {
  SPACE.lastIndex = pos;
  SPACE.exec(text);
  return SPACE.lastIndex;
}

/** An opening tag as one short line for a message, however long or multi-line it was. */
function excerpt(text: string, start: number, end: number): string {
  const MAX = 80;
  const raw =
    end - start > MAX ? `${text.slice(start, start + MAX - 4)}...>` : text.slice(start, end);
  return raw.replace(/\s+/g, ' ');
}
