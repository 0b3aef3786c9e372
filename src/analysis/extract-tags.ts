import { RaymondError } from '../errors.js';
import { parseOutput, type ParsedTag } from '../language/parse-output.js';
import { nextOpenTag, type OpenTag } from '../language/tag-scanner.js';

/** A transition tag found in a state's text, with its run-time parts kept as written. */
export interface FoundTag extends ParsedTag {
  /** `body` and the attribute names whose values are built at run time (`{{x}}`, `$x`). */
  dynamic: string[];
}

/** Every transition tag a text shows, and why the ones that do not parse fail. */
export interface TextScan {
  tags: FoundTag[];
  errors: string[];
}

/** Template placeholders of a prompt. */
const PLACEHOLDER = /\{\{[^{}]*\}\}/g;

/** Parts of a shell (or batch) line whose value only exists when the script runs. */
const SHELL_EXPANSION = new RegExp(
  [
    String.raw`\$\{[^}]*\}`,
    String.raw`\$\(\([^)]*\)\)`,
    String.raw`\$\([^)]*\)`,
    String.raw`\$[A-Za-z_]\w*`,
    String.raw`\$[0-9@*#?$!-]`,
    '`[^`]*`',
    String.raw`%(?:\d+\$)?[-+ #0]*\d*(?:\.\d+)?[sdiouxXfeEgGcb]`,
    String.raw`%[A-Za-z_]\w*%`,
  ].join('|'),
  'g',
);

// Comment lines describe tags ("# <call> pushes a frame") without printing them.
const COMMENT_LINE = /^[ \t]*#.*$/gm;
// Masked expansions become \0N\0: no character of a state name or of the tag syntax.
// eslint-disable-next-line no-control-regex
const MASK = /\u0000(\d+)\u0000/g;

/** Whether a value written in a frontmatter policy holds a template placeholder. */
export function hasPlaceholder(value: string): boolean {
  return new RegExp(PLACEHOLDER.source).test(value);
}

/** The tags a prompt body asks for; `{{x}}` in a target makes it dynamic. */
export function scanPrompt(body: string): TextScan {
  return scan(body, PLACEHOLDER);
}

/**
 * The tags a script prints. Its text is read as the output it would produce:
 * comment lines dropped and `\"` unescaped, so `echo "<goto x=\"1\">A</goto>"`
 * reads as the tag it prints; shell variables in a target make it dynamic.
 */
export function scanScript(text: string): TextScan {
  return scan(text.replace(COMMENT_LINE, '').replace(/\\(["\\])/g, '$1'), SHELL_EXPANSION);
}

function scan(text: string, expansion: RegExp): TextScan {
  const saved: string[] = [];
  const masked = text.replace(expansion, (m) => `\u0000${saved.push(m) - 1}\u0000`);
  const restore = (s: string) => s.replace(MASK, (_, i: string) => saved[Number(i)]!);
  const out: TextScan = { tags: [], errors: [] };
  const find = forwardFinder(masked);
  let open: OpenTag | undefined;
  let pos = 0;
  while ((open = nextOpenTag(masked, pos)) !== undefined) {
    pos = open.end;
    const name = open.name;
    const close = `</${name}>`;
    const end = find(close, open.end);
    if (end < 0) continue;
    // Prose that mentions a tag ("the <goto> tag", "a <result> ends it") has a target spanning
    // lines or holding markup, or the same tag opening again before the close.
    if (
      name === 'result' || name === 'print'
        ? isBefore(find(`<${name}`, open.end), end)
        : isBefore(firstMarkup(masked, open.end), end)
    )
      continue;
    pos = end + close.length;
    if (name === 'print') continue;
    try {
      for (const tag of parseOutput(masked.slice(open.start, pos), '').tags)
        out.tags.push(unmask(tag, restore));
    } catch (err) {
      if (!(err instanceof RaymondError)) throw err;
      out.errors.push(restore(err.message));
    }
  }
  return out;
}

function isBefore(index: number, end: number): boolean {
  return index >= 0 && index < end;
}

const MARKUP = /[<>\n]/g;

function firstMarkup(text: string, from: number): number {
  MARKUP.lastIndex = from;
  return MARKUP.exec(text)?.index ?? -1;
}

/**
 * `text.indexOf(needle, from)` for calls whose `from` never decreases, remembering
 * each needle's last answer: a text with thousands of unclosed `<goto>` is then
 * searched once, not once per tag.
 */
function forwardFinder(text: string): (needle: string, from: number) => number {
  const last = new Map<string, { from: number; at: number }>();
  return (needle, from) => {
    const known = last.get(needle);
    if (known && from >= known.from && (known.at < 0 || from <= known.at)) return known.at;
    const at = text.indexOf(needle, from);
    last.set(needle, { from, at });
    return at;
  };
}

function unmask(tag: ParsedTag, restore: (s: string) => string): FoundTag {
  const masked = (s: string) => new RegExp(MASK.source).test(s);
  const dynamic = masked(tag.body) && tag.tag !== 'result' ? ['body'] : [];
  const attributes: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(tag.attributes)) {
    if (masked(v)) dynamic.push(k);
    attributes[k] = restore(v);
  }
  return { tag: tag.tag, body: restore(tag.body), attributes, dynamic };
}
