import { toolName } from '../../language/grant.js';

/**
 * Claude Code's built-in tools (2.1.x), for lint's unknown-tool warning.
 * MCP tools (`mcp__server__tool`) are not in the list and not warned about.
 */
const CLAUDE_TOOLS: readonly string[] = [
  'Agent',
  'AskUserQuestion',
  'Bash',
  'BashOutput',
  'Edit',
  'EnterPlanMode',
  'ExitPlanMode',
  'Glob',
  'Grep',
  'KillShell',
  'LS',
  'MultiEdit',
  'NotebookEdit',
  'NotebookRead',
  'Read',
  'Skill',
  'SlashCommand',
  'Task',
  'TaskOutput',
  'TaskStop',
  'TodoWrite',
  'ToolSearch',
  'WebFetch',
  'WebSearch',
  'Write',
];

/** Why a grant's tool (`Bash`, `Bash(git *)`, `mcp__server__tool`) is not one Claude Code has, if it is not. */
export function claudeToolProblem(tool: string): string | undefined {
  const name = toolName(tool);
  if (CLAUDE_TOOLS.includes(name) || name.startsWith('mcp__')) return undefined;
  return `"${tool}" is not a Claude Code tool (known: ${CLAUDE_TOOLS.join(', ')}, and mcp__SERVER__TOOL)`;
}
