import { RaymondError } from '../errors.js';
import { TAG_NAME_PATTERN, parseOutput, type ParsedTag } from '../language/parse-output.js';

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
const OPEN_TAG = new RegExp(`<(${TAG_NAME_PATTERN})(?:\\s[^<>]*)?>`, 'g');
// Masked expansions become \0N\0: no character of a state name or of the tag syntax.
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
  const open = new RegExp(OPEN_TAG.source, 'g');
  let m: RegExpExecArray | null;
  while ((m = open.exec(masked)) !== null) {
    const name = m[1]!;
    const close = `</${name}>`;
    const end = masked.indexOf(close, open.lastIndex);
    if (end < 0) continue;
    const inner = masked.slice(open.lastIndex, end);
    const opaque = name === 'result' || name === 'print';
    // Prose that mentions a tag ("the <goto> tag", "a <result> ends it") has a target spanning
    // lines or holding markup, or the same tag opening again before the close.
    if (opaque ? inner.includes(`<${name}`) : /[<>\n]/.test(inner)) continue;
    const fragment = masked.slice(m.index, end + close.length);
    open.lastIndex = end + close.length;
    if (name === 'print') continue;
    try {
      for (const tag of parseOutput(fragment, '').tags) out.tags.push(unmask(tag, restore));
    } catch (err) {
      if (!(err instanceof RaymondError)) throw err;
      out.errors.push(restore(err.message));
    }
  }
  return out;
}

function unmask(tag: ParsedTag, restore: (s: string) => string): FoundTag {
  const masked = (s: string) => new RegExp(MASK.source).test(s);
  const dynamic = masked(tag.body) && tag.tag !== 'result' ? ['body'] : [];
  const attributes: Record<string, string> = {};
  for (const [k, v] of Object.entries(tag.attributes)) {
    if (masked(v)) dynamic.push(k);
    attributes[k] = restore(v);
  }
  return { tag: tag.tag, body: restore(tag.body), attributes, dynamic };
}
