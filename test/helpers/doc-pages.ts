import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './cli.js';

/** A fenced block of a page, with the HTML comments written just before it. */
export interface Fence {
  /** The info string after the opening backticks: `sh`, `text`, `` (none). */
  lang: string;
  body: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The `<!-- ... -->` comments on the lines just above the fence (blank lines between allowed), top first. */
  marks: string[];
}

/** README.md and every page under docs/, as paths relative to the repository. */
export function docPages(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(ROOT, dir))
      .sort()
      .flatMap((name) => {
        const path = join(dir, name);
        if (statSync(join(ROOT, path)).isDirectory()) return walk(path);
        return name.endsWith('.md') ? [path] : [];
      });
  return ['README.md', ...walk('docs')];
}

export function readPage(page: string): string {
  return readFileSync(join(ROOT, page), 'utf8');
}

/** The fenced blocks of a page, in order. */
export function fences(text: string): Fence[] {
  const lines = text.split('\n');
  const out: Fence[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const marks: string[] = [];
    for (let j = i - 1; j >= 0; j--) {
      const m = /^<!--\s*(.*?)\s*-->$/.exec(lines[j]!.trim());
      if (m) marks.unshift(m[1]!);
      else if (lines[j]!.trim() !== '') break;
    }
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    out.push({ lang: open[1]!, body: body.join('\n'), line: start + 1, marks });
  }
  return out;
}

/** The page's text outside fenced blocks (links and headings inside code are not links or headings). */
function prose(text: string): string {
  let inFence = false;
  return text
    .split('\n')
    .map((l) => {
      if (/^```/.test(l)) {
        inFence = !inFence;
        return '';
      }
      return inFence ? '' : l;
    })
    .join('\n');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as `-`; repeats get `-1`, `-2`... */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(text).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = m[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The targets of a page's markdown links and images, outside code. */
export function links(text: string): string[] {
  const body = prose(text).replace(/`[^`\n]*`/g, '');
  return [...body.matchAll(/!?\[[^\]\n]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

/** Where a relative link from `page` points, relative to the repository. */
export function resolveLink(page: string, target: string): string {
  return relative(ROOT, join(ROOT, page, '..', target));
}
