import { closestName, editDistance } from '../closest-name.js';
import { TAG_NAMES } from './tag-scanner.js';

/** A tag written in a text that Raymond does not know, and the known tag it is closest to. */
export interface MisspeltTag {
  written: string;
  meant: string;
}

/** An opening tag's name: `<jion>` or `<reslt attr="x">`. */
const OPEN_NAME = /<([A-Za-z][\w-]*)(?=[\s>/])/g;

/**
 * The unknown tags of a text that are a typo of a known one (`<jion>` for `<join>`), each once,
 * in order. Only a name that is also closed (`</jion>`) counts: prose such as `<div>` or `a <b`
 * is left alone, and a name too far from every tag (`<summary>`) is no typo. A typo keeps its
 * first letter, so a prompt's own `<task>...</task>` is not taken for `<ask>`.
 */
export function misspeltTags(text: string): MisspeltTag[] {
  const known = new Set<string>(TAG_NAMES);
  const found = new Map<string, MisspeltTag>();
  for (const [, written] of text.matchAll(OPEN_NAME)) {
    if (written === undefined || known.has(written) || found.has(written)) continue;
    const meant = nearest(written.toLowerCase());
    if (
      meant !== undefined &&
      meant[0] === written[0]!.toLowerCase() &&
      text.includes(`</${written}>`)
    )
      found.set(written, { written, meant });
  }
  return [...found.values()];
}

/**
 * The tag a name is closest to; of tags as close, one the name's letters appear in, in order: a
 * dropped letter (`<reslt>`, `<result>`) is a likelier typo than a changed one (`<reset>`).
 */
function nearest(name: string): string | undefined {
  const closest = closestName(name, TAG_NAMES);
  if (closest === undefined) return undefined;
  const distance = editDistance(name, closest);
  const tied = TAG_NAMES.filter((t) => editDistance(name, t) === distance);
  return tied.find((t) => isSubsequence(name, t)) ?? closest;
}

function isSubsequence(short: string, long: string): boolean {
  let i = 0;
  for (const c of long) if (c === short[i]) i++;
  return i === short.length;
}

/** The one line that names a misspelt tag: "unknown tag `<jion>`: did you mean `<join>`?". */
export function misspeltTagMessage(tag: MisspeltTag): string {
  return `unknown tag \`<${tag.written}>\`: did you mean \`<${tag.meant}>\`?`;
}
