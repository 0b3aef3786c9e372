import { Type as T, type Static, type TSchema } from '@sinclair/typebox';
import { checked, type Checked } from '../schema-problem.js';

/**
 * The grant keys as written (frontmatter, a YAML state, the top of
 * `workflow.yaml`, a backend's config), one TypeBox schema per key: a value
 * is checked by its key's compiled schema, and only a value that fails is
 * walked again for the one-line message the key has always given (they are
 * part of the interface: lint, the language server and the tests show them).
 */

/** Claude Code's permission modes (its `--permission-mode` choices). */
export const PERMISSION_MODES = [
  'acceptEdits',
  'auto',
  'bypassPermissions',
  'manual',
  'dontAsk',
  'plan',
  'default',
] as const;
/** What a denied tool call does to the step: `warn` shows it and goes on; `fail` fails the step, and so the agent. */
export const ON_DENIAL_MODES = ['warn', 'fail'] as const;

const oneOf = <V extends string>(values: readonly V[]) => T.Union(values.map((v) => T.Literal(v)));
/** Text with something in it: blank text is refused like a missing value. */
export const TEXT = T.String({ pattern: '\\S' });
/** A list of tool names, or one comma-separated string of them. */
const TOOL_LIST = T.Union([T.String(), T.Array(TEXT)]);

const SERVER_FIELDS = T.Object({
  type: T.Optional(T.String()),
  command: T.Optional(T.String()),
  url: T.Optional(T.String()),
  args: T.Optional(T.Array(T.String())),
  env: T.Optional(T.Record(T.String(), T.String())),
});
/** Where a server is: a command to start, or a URL to reach. */
const SERVER_ENDPOINT = T.Union([T.Object({ command: TEXT }), T.Object({ url: TEXT })]);
/** One MCP server: `{ command, args, env }` or `{ type, url }` (other keys are Claude Code's). */
export const MCP_SERVER = T.Intersect([SERVER_FIELDS, SERVER_ENDPOINT]);
/** Server name → server. */
export const MCP_SERVER_MAP = T.Record(T.String(), MCP_SERVER);
/** A server map, or Claude Code's file shape `{ mcpServers: {...} }`. */
export const MCP_SERVERS = T.Union([
  T.Object({ mcpServers: MCP_SERVER_MAP }, { additionalProperties: false }),
  MCP_SERVER_MAP,
]);

/** Each grant key's schema, in the order the keys are documented. */
export const GRANT_SCHEMAS = {
  tools: TOOL_LIST,
  allowed_tools: TOOL_LIST,
  disallowed_tools: TOOL_LIST,
  mcp_servers: T.Union([TEXT, MCP_SERVERS]),
  mcp_inherit: T.Boolean(),
  append_system_prompt: TEXT,
  add_dirs: T.Union([TEXT, T.Array(TEXT)]),
  permission_mode: oneOf(PERMISSION_MODES),
  on_denial: oneOf(ON_DENIAL_MODES),
};
export type GrantKey = keyof typeof GRANT_SCHEMAS;
/** The keys, as written, in the order they are documented. */
export const GRANT_KEYS = Object.keys(GRANT_SCHEMAS) as GrantKey[];

/** The grant keys of a mapping as written, every one optional; its JSON Schema as well. */
export const GRANT_AS_WRITTEN = T.Partial(T.Object(GRANT_SCHEMAS));
/** The grant keys as written, typed by their schemas. */
export type GrantAsWritten = Static<typeof GRANT_AS_WRITTEN>;

const grantChecks = new Map<GrantKey, Checked<TSchema>>(
  GRANT_KEYS.map((k) => [k, checked(GRANT_SCHEMAS[k])]),
);
const serverMap = checked(MCP_SERVER_MAP);

/** Whether `value` fits grant key `key`'s schema (compiled on first use). */
export function fitsGrantKey<K extends GrantKey>(
  key: K,
  value: unknown,
): value is Static<(typeof GRANT_SCHEMAS)[K]> {
  return grantChecks.get(key)!.check(value);
}

/** Whether `value` is a map of server names to servers. */
export function fitsServerMap(value: unknown): value is Static<typeof MCP_SERVER_MAP> {
  return serverMap.check(value);
}

function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The server map of Claude Code's file shape `{ mcpServers: {...} }`; any other value as it is. */
export function unwrapServers(value: unknown): unknown {
  return isMapping(value) && isMapping(value.mcpServers) && Object.keys(value).length === 1
    ? value.mcpServers
    : value;
}

const fitsText = checked(TEXT);
const fitsArgs = checked(T.Array(T.String()));
const fitsEnv = checked(T.Record(T.String(), T.String()));
const endpoint = checked(SERVER_ENDPOINT);
/** Whether a server says where it is (a plain boolean: the server's other fields are still to check). */
const hasEndpoint = (server: unknown): boolean => endpoint.check(server);

/** What is wrong with a value that fails MCP_SERVERS, naming the server; undefined when it fits. */
export function mcpServersProblem(value: unknown): string | undefined {
  const servers = unwrapServers(value);
  if (fitsServerMap(servers)) return undefined;
  if (!isMapping(servers))
    return 'mcp_servers must be a map of server names to servers ({ command, args } or { url }), or a JSON file of them';
  for (const [name, s] of Object.entries(servers)) {
    if (!isMapping(s))
      return `mcp_servers.${name} must be a mapping like { command: ..., args: [...] } or { url: ... }`;
    if (!hasEndpoint(s)) return `mcp_servers.${name} has neither command nor url`;
    if (s.args !== undefined && !fitsArgs.check(s.args))
      return `mcp_servers.${name}.args must be a list of strings`;
    if (s.env !== undefined && !fitsEnv.check(s.env))
      return `mcp_servers.${name}.env must be a map of strings`;
  }
  return 'mcp_servers must be a map of server names to servers ({ command, args } or { url }), or a JSON file of them';
}

/** The one line that says why `value` does not fit grant key `key` (call it on a value that does not). */
export function grantKeyProblem(key: GrantKey, value: unknown): string {
  switch (key) {
    case 'tools':
    case 'allowed_tools':
    case 'disallowed_tools': {
      const usage = `${key} must be a list of tool names (or one comma-separated string), like [Read, "Bash(git *)"]`;
      if (!Array.isArray(value)) return usage;
      const items: unknown[] = value;
      return `${usage}; ${JSON.stringify(items.find((item) => !fitsText.check(item)))} is not one`;
    }
    case 'mcp_servers':
      return typeof value === 'string'
        ? 'mcp_servers must be a JSON file (relative to the workflow) or a map of servers'
        : mcpServersProblem(value)!;
    case 'mcp_inherit':
      return `mcp_inherit must be true or false, not ${JSON.stringify(value)}`;
    case 'append_system_prompt':
      return 'append_system_prompt must be text, or @FILE relative to the workflow';
    case 'add_dirs':
      return 'add_dirs must be a list of directories';
    case 'permission_mode':
      return `permission_mode must be one of ${PERMISSION_MODES.join(', ')}, not ${JSON.stringify(value)}`;
    case 'on_denial':
      return `on_denial must be one of ${ON_DENIAL_MODES.join(', ')}, not ${JSON.stringify(value)}`;
  }
}
