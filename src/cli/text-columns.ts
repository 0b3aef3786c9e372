/**
 * How many terminal columns text takes, as terminals draw it: a CJK
 * character or an emoji takes two, a combining mark or a zero-width
 * character none, and a character with its marks (one grapheme) is drawn
 * as one. `.length` counts UTF-16 units, which is none of these: a line of
 * CJK state names measured by it wraps on the terminal, and the live view
 * then erases too few rows.
 */

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** East Asian Wide and Fullwidth code points (Unicode 15, UAX #11) outside the emoji, which are found by their property. */
const WIDE: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f],
  [0x2329, 0x232a],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x16fe0, 0x16fe4],
  [0x17000, 0x18cff],
  [0x1aff0, 0x1b2ff],
  [0x1f200, 0x1f2ff],
  [0x20000, 0x2fffd],
  [0x30000, 0x3fffd],
];

const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}\p{Cc}]+$/u;
const EMOJI = /\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F/u;

function isWide(code: number): boolean {
  let lo = 0;
  let hi = WIDE.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [from, to] = WIDE[mid]!;
    if (code < from) hi = mid - 1;
    else if (code > to) lo = mid + 1;
    else return true;
  }
  return false;
}

/** Columns of one grapheme: 0, 1 or 2. */
function graphemeColumns(g: string): number {
  if (ZERO_WIDTH.test(g)) return 0;
  if (EMOJI.test(g) || isWide(g.codePointAt(0)!)) return 2;
  return 1;
}

/** Columns `text` takes on a terminal (no control sequences in it). */
export function columnsOf(text: string): number {
  // Plain ASCII, the common case, is one column a character.
  if (/^[\x20-\x7e]*$/.test(text)) return text.length;
  let n = 0;
  for (const { segment } of segmenter.segment(text)) n += graphemeColumns(segment);
  return n;
}

/** The longest start of `text` that fits in `columns`, never cutting a grapheme (a wide one that would straddle the edge is left out). */
export function cutToColumns(text: string, columns: number): string {
  if (/^[\x20-\x7e]*$/.test(text)) return text.slice(0, Math.max(0, columns));
  let used = 0;
  let end = 0;
  for (const { segment, index } of segmenter.segment(text)) {
    const w = graphemeColumns(segment);
    if (used + w > columns) break;
    used += w;
    end = index + segment.length;
  }
  return text.slice(0, end);
}

/** `text` padded with spaces to `columns` (as padEnd does for characters). */
export function padToColumns(text: string, columns: number): string {
  return text + ' '.repeat(Math.max(0, columns - columnsOf(text)));
}
