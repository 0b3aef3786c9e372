import { RaymondError, type ErrorCode } from '../errors.js';

/** What a denied tool call does to the step: `warn` shows it and goes on; `fail` fails the step, and so the agent. */
export type OnDenial = 'warn' | 'fail';
export const ON_DENIAL_MODES: readonly OnDenial[] = ['warn', 'fail'];

/** Claude Code's permission modes (its `--permission-mode` choices). */
export const PERMISSION_MODES = ['acceptEdits', 'auto', 'bypassPermissions', 'manual', 'dontAsk', 'plan', 'default'] as const;

/**
 * What a state may do, as written in its frontmatter, on a YAML state, at
 * the top of `workflow.yaml` or in the config. Paths are as written: the
 * run resolves them (state-grant.ts).
 */
export interface Grant {
  /** `tools`: the only built-in tools the state has; `[]`: none. */
  tools?: string[];
  /** `allowed_tools`: tools or patterns pre-approved (`Bash(git commit:*)`). */
  allowedTools?: string[];
  /** `disallowed_tools`: added to the run's list. */
  disallowedTools?: string[];
  /** `mcp_servers`: a JSON file relative to the workflow, or the servers inline (name → server). */
  mcpServers?: string | Record<string, unknown>;
  /** `mcp_inherit: true`: the user's own MCP servers stay besides the state's. */
  mcpInherit?: boolean;
  /** `append_system_prompt`: text, or `@FILE` relative to the workflow. */
  appendSystemPrompt?: string;
  /** `add_dirs`: extra directories, relative to the agent's directory. */
  addDirs?: string[];
  permissionMode?: string;
  onDenial?: OnDenial;
}

/** The keys, as written, in the order they are documented. */
export const GRANT_KEYS = ['tools', 'allowed_tools', 'disallowed_tools', 'mcp_servers', 'mcp_inherit', 'append_system_prompt', 'add_dirs', 'permission_mode', 'on_denial'] as const;
export type GrantKey = (typeof GRANT_KEYS)[number];

/** Whether a key of a mapping is one of the grant's. */
export function isGrantKey(key: string): key is GrantKey {
  return (GRANT_KEYS as readonly string[]).includes(key);
}

/** A list as the keys take it: a YAML list of names, or one comma string (commas inside `(...)` kept). */
function toolList(value: unknown, key: string, fail: (message: string) => never): string[] {
  const usage = `${key} must be a list of tool names (or one comma-separated string), like [Read, "Bash(git *)"]`;
  let items: unknown[];
  if (typeof value === 'string') items = splitCommas(value);
  else if (Array.isArray(value)) items = value;
  else return fail(usage);
  return items.map((item) => {
    if (typeof item !== 'string' || item.trim() === '') fail(`${usage}; ${JSON.stringify(item)} is not one`);
    return item.trim();
  });
}

/** `Read, Bash(git add:*, x)` → [`Read`, `Bash(git add:*, x)`]; an empty string is no tools. */
export function splitCommas(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Checks an MCP server map (`{ name: { command, args, env } | { type, url } }`),
 * or Claude Code's file shape `{ mcpServers: {...} }`; gives the server map.
 * Each problem is one line naming the server.
 */
export function mcpServerMap(value: unknown, fail: (message: string) => never): Record<string, unknown> {
  if (!isMapping(value)) return fail('mcp_servers must be a map of server names to servers ({ command, args } or { url }), or a JSON file of them');
  const servers = isMapping(value.mcpServers) && Object.keys(value).length === 1 ? value.mcpServers : value;
  for (const [name, server] of Object.entries(servers)) {
    if (!isMapping(server)) fail(`mcp_servers.${name} must be a mapping like { command: ..., args: [...] } or { url: ... }`);
    const s = server;
    const command = typeof s.command === 'string' && s.command.trim() !== '';
    const url = typeof s.url === 'string' && s.url.trim() !== '';
    if (!command && !url) fail(`mcp_servers.${name} has neither command nor url`);
    if (s.args !== undefined && !(Array.isArray(s.args) && s.args.every((a) => typeof a === 'string'))) fail(`mcp_servers.${name}.args must be a list of strings`);
    if (s.env !== undefined && !(isMapping(s.env) && Object.values(s.env).every((a) => typeof a === 'string'))) fail(`mcp_servers.${name}.env must be a map of strings`);
  }
  return servers;
}

/**
 * Reads one grant key into `grant`. `fail` throws the caller's error (one
 * line naming its file). Values are checked for shape only; tool names and
 * paths are checked by lint and when the state runs.
 */
export function readGrantKey(grant: Grant, key: GrantKey, value: unknown, fail: (message: string) => never): void {
  const text = (what: string): string => {
    if (typeof value !== 'string' || value.trim() === '') fail(`${key} must be ${what}`);
    return value;
  };
  switch (key) {
    case 'tools':
      grant.tools = toolList(value, key, fail);
      return;
    case 'allowed_tools':
      grant.allowedTools = toolList(value, key, fail);
      return;
    case 'disallowed_tools':
      grant.disallowedTools = toolList(value, key, fail);
      return;
    case 'mcp_servers':
      grant.mcpServers = typeof value === 'string' ? text('a JSON file (relative to the workflow) or a map of servers') : mcpServerMap(value, fail);
      return;
    case 'mcp_inherit':
      if (typeof value !== 'boolean') fail(`mcp_inherit must be true or false, not ${JSON.stringify(value)}`);
      grant.mcpInherit = value;
      return;
    case 'append_system_prompt':
      grant.appendSystemPrompt = text('text, or @FILE relative to the workflow');
      return;
    case 'add_dirs': {
      const dirs = typeof value === 'string' ? [value] : value;
      if (!Array.isArray(dirs) || !dirs.every((d) => typeof d === 'string' && d.trim() !== '')) fail('add_dirs must be a list of directories');
      grant.addDirs = (dirs as string[]).map((d) => d.trim());
      return;
    }
    case 'permission_mode':
      if (!(PERMISSION_MODES as readonly unknown[]).includes(value)) fail(`permission_mode must be one of ${PERMISSION_MODES.join(', ')}, not ${JSON.stringify(value)}`);
      grant.permissionMode = value as string;
      return;
    case 'on_denial':
      if (!(ON_DENIAL_MODES as readonly unknown[]).includes(value)) fail(`on_denial must be one of ${ON_DENIAL_MODES.join(', ')}, not ${JSON.stringify(value)}`);
      grant.onDenial = value as OnDenial;
  }
}

/**
 * Reads every grant key of a mapping (others are left to the caller).
 * @throws RaymondError ERR_FRONTMATTER (or `code`) naming `file`.
 */
export function readGrant(data: Record<string, unknown>, file: string, code: ErrorCode = 'ERR_FRONTMATTER'): Grant {
  const grant: Grant = {};
  const fail = (message: string): never => {
    throw new RaymondError(code, message, { file });
  };
  for (const [key, value] of Object.entries(data)) if (isGrantKey(key)) readGrantKey(grant, key, value, fail);
  return grant;
}

/**
 * A grant over another: each key the nearer one (`over`) gives wins, but
 * `disallowed_tools`, which adds to the farther one's.
 */
export function overGrant(base: Grant, over: Grant): Grant {
  const out: Grant = { ...base, ...over };
  if (base.disallowedTools && over.disallowedTools) out.disallowedTools = [...new Set([...base.disallowedTools, ...over.disallowedTools])];
  return out;
}

/** Whether a grant sets anything. */
export function isEmptyGrant(grant: Grant): boolean {
  return Object.values(grant).every((v) => v === undefined);
}

/** The tool name of a tool or pattern: `Bash(git *)` → `Bash`. */
export function toolName(tool: string): string {
  const paren = tool.indexOf('(');
  return (paren === -1 ? tool : tool.slice(0, paren)).trim();
}

/**
 * Claude Code's built-in tools (2.1.x), for lint's unknown-tool warning.
 * MCP tools (`mcp__server__tool`) are not in the list and not warned about.
 */
export const CLAUDE_TOOLS: readonly string[] = [
  'Agent', 'AskUserQuestion', 'Bash', 'BashOutput', 'Edit', 'EnterPlanMode', 'ExitPlanMode', 'Glob', 'Grep', 'KillShell', 'LS', 'MultiEdit', 'NotebookEdit', 'NotebookRead', 'Read',
  'Skill', 'SlashCommand', 'Task', 'TaskOutput', 'TaskStop', 'TodoWrite', 'ToolSearch', 'WebFetch', 'WebSearch', 'Write',
];
