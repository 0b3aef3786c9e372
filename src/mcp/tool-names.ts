/** The tools every Raymond MCP server has beside its workflows. */
export const FOLLOW_TOOLS = ['raymond_status', 'raymond_answer', 'raymond_cancel'] as const;

/**
 * The longest tool name made from a workflow id. Clients prefix the name
 * (Claude Code: `mcp__<server>__`, or `mcp__plugin_<plugin>_<server>__` for
 * a plugin's), and model APIs cap the whole name at 64 characters.
 */
export const MAX_TOOL_NAME = 40;

/** A workflow id as a tool name: letters, digits, `_` and `-` only, at most MAX_TOOL_NAME long. */
function baseName(id: string): string {
  const name = id
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/^[_-]+|[_-]+$/g, '')
    .slice(0, MAX_TOOL_NAME);
  return name === '' ? 'workflow' : name;
}

/**
 * The tool name of each workflow id, unique among them and apart from
 * FOLLOW_TOOLS: ids that become the same name get `_2`, `_3`... in the
 * order of the ids sorted, so a name stays the same from one listing to
 * the next while the workflows do.
 */
export function toolNamesOf(ids: readonly string[]): Map<string, string> {
  const taken = new Set<string>(FOLLOW_TOOLS);
  const names = new Map<string, string>();
  for (const id of [...ids].sort()) {
    const base = baseName(id);
    let name = base;
    for (let n = 2; taken.has(name); n++) {
      const suffix = `_${n}`;
      name = base.slice(0, MAX_TOOL_NAME - suffix.length) + suffix;
    }
    taken.add(name);
    names.set(id, name);
  }
  return names;
}
