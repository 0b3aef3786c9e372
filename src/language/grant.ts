import { RaymondError, type ErrorCode } from '../errors.js';
import {
  fitsGrantKey,
  fitsServerMap,
  GRANT_KEYS,
  grantKeyProblem,
  mcpServersProblem,
  unwrapServers,
  type ON_DENIAL_MODES,
  type GrantKey,
} from './grant-schema.js';

export { GRANT_KEYS, PERMISSION_MODES, ON_DENIAL_MODES, type GrantKey } from './grant-schema.js';

/** What a denied tool call does to the step: `warn` shows it and goes on; `fail` fails the step, and so the agent. */
export type OnDenial = (typeof ON_DENIAL_MODES)[number];

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

/** Whether a key of a mapping is one of the grant's. */
export function isGrantKey(key: string): key is GrantKey {
  return (GRANT_KEYS as readonly string[]).includes(key);
}

/** A tool list as written (checked): a YAML list of names, or one comma string (commas inside `(...)` kept). */
function toolList(value: string | string[]): string[] {
  return typeof value === 'string' ? splitCommas(value) : value.map((item) => item.trim());
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

/**
 * Checks an MCP server map (`{ name: { command, args, env } | { type, url } }`),
 * or Claude Code's file shape `{ mcpServers: {...} }`, against its schema;
 * gives the server map. Each problem is one line naming the server.
 */
export function mcpServerMap(
  value: unknown,
  fail: (message: string) => never,
): Record<string, unknown> {
  const servers = unwrapServers(value);
  return fitsServerMap(servers) ? servers : fail(mcpServersProblem(value)!);
}

/**
 * Reads one grant key into `grant`. `fail` throws the caller's error (one
 * line naming its file). Values are checked for shape only, by the key's
 * schema (grant-schema.ts); tool names and paths are checked by lint and
 * when the state runs.
 */
export function readGrantKey(
  grant: Grant,
  key: GrantKey,
  value: unknown,
  fail: (message: string) => never,
): void {
  if (!fitsGrantKey(key, value)) fail(grantKeyProblem(key, value));
  switch (key) {
    case 'tools':
      grant.tools = toolList(value as string | string[]);
      return;
    case 'allowed_tools':
      grant.allowedTools = toolList(value as string | string[]);
      return;
    case 'disallowed_tools':
      grant.disallowedTools = toolList(value as string | string[]);
      return;
    case 'mcp_servers':
      grant.mcpServers = typeof value === 'string' ? value : mcpServerMap(value, fail);
      return;
    case 'mcp_inherit':
      grant.mcpInherit = value as boolean;
      return;
    case 'append_system_prompt':
      grant.appendSystemPrompt = value as string;
      return;
    case 'add_dirs':
      grant.addDirs = (typeof value === 'string' ? [value] : (value as string[])).map((d) =>
        d.trim(),
      );
      return;
    case 'permission_mode':
      grant.permissionMode = value as string;
      return;
    case 'on_denial':
      grant.onDenial = value as OnDenial;
  }
}

/**
 * Reads every grant key of a mapping (others are left to the caller).
 * @throws RaymondError ERR_FRONTMATTER (or `code`) naming `file`.
 */
export function readGrant(
  data: Record<string, unknown>,
  file: string,
  code: ErrorCode = 'ERR_FRONTMATTER',
): Grant {
  const grant: Grant = {};
  const fail = (message: string): never => {
    throw new RaymondError(code, message, { file });
  };
  for (const [key, value] of Object.entries(data))
    if (isGrantKey(key)) readGrantKey(grant, key, value, fail);
  return grant;
}

/**
 * A grant over another: each key the nearer one (`over`) gives wins, but
 * `disallowed_tools`, which adds to the farther one's.
 */
export function overGrant(base: Grant, over: Grant): Grant {
  const out: Grant = { ...base, ...over };
  if (base.disallowedTools && over.disallowedTools)
    out.disallowedTools = [...new Set([...base.disallowedTools, ...over.disallowedTools])];
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
