import { configArg, type TomlValue } from './codex-toml.js';

/** A server name codex takes in a dotted `-c mcp_servers.NAME` path. */
const PATH_NAME = /^[A-Za-z0-9_-]+$/;

const strings = (v: unknown): v is Record<string, string> =>
  v !== null &&
  typeof v === 'object' &&
  !Array.isArray(v) &&
  Object.values(v).every((s) => typeof s === 'string');

/**
 * One server of a grant (`{ command, args, env }` or `{ url, headers }`) as
 * codex's `[mcp_servers.NAME]` table. The state grants the server, so its
 * tools run without asking: codex exec asks no one, and refuses every call
 * to a server that wants approval ("MCP tool call requires approval, but
 * approval policy is never", measured). It is `required`: codex waits for it
 * before the first request (without, a server still starting is missing
 * from that request's tools, measured) and fails the turn if it cannot
 * start it.
 */
function serverTable(server: Record<string, unknown>): Record<string, TomlValue> {
  const t: Record<string, TomlValue> = {};
  if (typeof server.command === 'string') t.command = server.command;
  if (Array.isArray(server.args)) t.args = server.args.map(String);
  if (strings(server.env)) t.env = server.env;
  if (typeof server.cwd === 'string') t.cwd = server.cwd;
  if (typeof server.url === 'string') t.url = server.url;
  if (strings(server.headers)) t.http_headers = server.headers;
  t.default_tools_approval_mode = 'approve';
  t.required = true;
  return t;
}

/** The server map of a grant's `mcpConfig` (`{"mcpServers": {...}}` as JSON text). */
function serversOf(mcpConfig: string): Record<string, Record<string, unknown>> {
  const parsed = JSON.parse(mcpConfig) as { mcpServers?: Record<string, Record<string, unknown>> };
  return parsed.mcpServers ?? {};
}

/**
 * Why codex cannot take a grant's servers, if it cannot. codex starts the
 * user's own servers (config.toml, a profile) whatever `-c` says: a
 * `-c mcp_servers={...}` that names only the state's still started the
 * user's (measured), so a state's servers can only come beside theirs, as
 * `mcp_inherit: true` says. And each name is one part of a dotted `-c`
 * path, which codex never unquotes.
 */
export function codexMcpProblem(mcpConfig: string, inherit: boolean): string | undefined {
  if (!inherit)
    return "mcp_servers: the codex backend cannot honour it without mcp_inherit: true (codex always starts the user's own MCP servers from its config.toml, so a state's servers can only come beside them): add mcp_inherit: true";
  const name = Object.keys(serversOf(mcpConfig)).find((n) => !PATH_NAME.test(n));
  return name === undefined
    ? undefined
    : `mcp_servers: the codex backend takes server names of letters, digits, _ and - only, not "${name}"`;
}

/** The `-c mcp_servers.NAME={...}` overrides that add a grant's servers to the user's. Check codexMcpProblem first. */
export function codexMcpArgs(mcpConfig: string): string[] {
  return Object.entries(serversOf(mcpConfig)).flatMap(([name, s]) =>
    configArg(`mcp_servers.${name}`, serverTable(s)),
  );
}
