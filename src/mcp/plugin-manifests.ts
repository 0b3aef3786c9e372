import type { WorkflowEntry } from '../scope/workflow-manifest.js';
import { PLUGIN_SERVER, pluginToolName } from './plugin-skill.js';

/** The version written into an exported plugin's manifests. */
export const PLUGIN_VERSION = '1.0.0';

/** The folder of an exported plugin that holds its workflows, the MCP server's `--root`. */
export const WORKFLOWS_FOLDER = 'workflows';

/** What a plugin is made of, as the manifests need it. */
export interface PluginSpec {
  name: string;
  author: string;
  /** The `raymond` executable the MCP server runs: a name looked up on PATH, or an absolute path. */
  command: string;
  /** `raymond mcp` options baked into `.mcp.json`. */
  wait?: number;
  budget?: number;
  /** Each workflow with its tool name, in tool-name order. */
  workflows: Array<{ entry: WorkflowEntry; tool: string }>;
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function pluginDescription(spec: PluginSpec): string {
  if (spec.workflows.length === 1) {
    const { entry } = spec.workflows[0]!;
    return entry.description || `The Raymond workflow ${entry.name} as a tool`;
  }
  return `Raymond workflows as tools: ${spec.workflows.map((w) => w.entry.name).join(', ')}`;
}

/** `.claude-plugin/plugin.json`: the plugin's manifest. */
export function pluginJson(spec: PluginSpec): string {
  return json({
    name: spec.name,
    version: PLUGIN_VERSION,
    description: pluginDescription(spec),
    author: { name: spec.author },
    keywords: ['raymond', 'workflow'],
  });
}

/**
 * `.claude-plugin/marketplace.json`: the folder is also a marketplace of
 * this one plugin (`"source": "./"`), so `claude plugin install NAME
 * --marketplace DIR` installs it.
 */
export function marketplaceJson(spec: PluginSpec): string {
  return json({
    name: spec.name,
    owner: { name: spec.author },
    description: `The Claude Code plugin ${spec.name}, exported by raymond export claude-plugin`,
    plugins: [{ name: spec.name, source: './', description: pluginDescription(spec) }],
  });
}

/**
 * `.mcp.json`: the MCP server Claude Code starts when the plugin loads,
 * `raymond mcp` over the plugin's own workflows (Claude Code expands
 * `${CLAUDE_PLUGIN_ROOT}` to the plugin's folder; the server's working
 * directory is the session's).
 */
export function mcpJson(spec: PluginSpec): string {
  const args = ['mcp', '--root', `\${CLAUDE_PLUGIN_ROOT}/${WORKFLOWS_FOLDER}`];
  if (spec.wait !== undefined) args.push('--wait', String(spec.wait));
  if (spec.budget !== undefined) args.push('--budget', String(spec.budget));
  return json({ mcpServers: { [PLUGIN_SERVER]: { command: spec.command, args } } });
}

/** README.md: what the plugin offers, what it needs and how to install it. */
export function pluginReadme(spec: PluginSpec): string {
  const rows = spec.workflows.map(
    ({ entry, tool }) =>
      `| \`${spec.name}:${tool}\` | \`${pluginToolName(spec.name, tool)}\` | ${(entry.description || entry.name).replace(/\|/g, '\\|').replace(/\s+/g, ' ')} |`,
  );
  const command =
    spec.command === 'raymond'
      ? 'Raymond installed, with `raymond` on the PATH of Claude Code'
      : `the Raymond executable \`${spec.command}\``;
  return [
    `# ${spec.name}`,
    '',
    `A Claude Code plugin that runs Raymond workflows as tools. Each workflow has a skill, which tells Claude when to use it and how, and a tool of the plugin's MCP server (\`raymond mcp\`), which runs it. The workflows are in \`${WORKFLOWS_FOLDER}/\`.`,
    '',
    '| Skill | Tool | What it does |',
    '|---|---|---|',
    ...rows,
    '',
    `It needs ${command}: the MCP server is \`${spec.command} mcp --root <this folder>/${WORKFLOWS_FOLDER}\`, started by Claude Code in the session's working directory.`,
    '',
    'Try it for one session, or install it (Claude Code reads it from this folder, so keep the folder):',
    '',
    '```sh',
    'claude --plugin-dir <this folder>',
    `claude plugin install ${spec.name} --marketplace <this folder>`,
    '```',
    '',
    `Made by \`raymond export claude-plugin\`; export it again rather than editing it.`,
    '',
  ].join('\n');
}
