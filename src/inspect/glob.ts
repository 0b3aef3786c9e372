/**
 * A shell-style pattern for agent ids: `*` any run of characters, `?` one
 * character, `{a,b}` either; everything else is literal. The whole id must match.
 */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  let group = 0;
  for (const ch of glob) {
    if (ch === '*') out += '.*';
    else if (ch === '?') out += '.';
    else if (ch === '{') {
      group++;
      out += '(?:';
    } else if (ch === '}' && group > 0) {
      group--;
      out += ')';
    } else if (ch === ',' && group > 0) out += '|';
    else out += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${out}${')'.repeat(group)}$`);
}
