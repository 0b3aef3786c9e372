import { stringify } from 'yaml';
import type { WorkflowEntry } from '../scope/workflow-manifest.js';
import { usd } from '../../machines/money.js';
import { FOLLOW_TOOLS } from './tool-names.js';

/** The name of the MCP server in an exported plugin's `.mcp.json`: part of every tool's full name. */
export const PLUGIN_SERVER = 'raymond';

/** The most a skill's description may be (Claude Code's and the Agent Skills limit). */
const MAX_DESCRIPTION = 1024;

/** The longest tool name model APIs take, prefix included. */
export const MAX_FULL_TOOL_NAME = 64;

/** Claude Code's normalization of a plugin or server name inside a tool name. */
function normalized(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_');
}

/**
 * The name Claude Code gives a tool of a plugin's MCP server (measured with
 * 2.1.330: `mcp__plugin_<plugin>_<server>__<tool>`).
 */
export function pluginToolName(plugin: string, tool: string): string {
  return `mcp__plugin_${normalized(plugin)}_${normalized(PLUGIN_SERVER)}__${tool}`;
}

/** The full names of the follow-up tools (status, answer, cancel) of a plugin. */
function followTools(plugin: string): Record<(typeof FOLLOW_TOOLS)[number], string> {
  const [status, answer, cancel] = FOLLOW_TOOLS.map((t) => pluginToolName(plugin, t));
  return { raymond_status: status!, raymond_answer: answer!, raymond_cancel: cancel! };
}

/** Text ending in a full stop, for joining sentences. */
function sentence(text: string): string {
  const t = text.trim().replace(/\s+/g, ' ');
  return t === '' || /[.!?]$/.test(t) ? t : `${t}.`;
}

/** What the input is, in words: its label and its description. */
function inputWords(entry: WorkflowEntry): string {
  const { label, description } = entry.input;
  if (label && description) return `${label} (${description.replace(/[.\s]+$/, '')})`;
  return label || description || 'the text the workflow works on';
}

/**
 * The skill's description: what Claude Code matches a request against to
 * decide to use it. The manifest's description (or name), what the input
 * is, and that it runs as a Raymond workflow.
 */
export function skillDescription(entry: WorkflowEntry): string {
  const what = sentence(entry.description || `Runs the workflow ${entry.name}`);
  const input = entry.input.mode === 'none' ? '' : ` Input: ${sentence(inputWords(entry))}`;
  const when = ` Use it when the user asks for this or the task at hand matches it: it runs the Raymond workflow "${entry.id}" through an MCP tool.`;
  const text = `${what}${input}${when}`;
  return text.length <= MAX_DESCRIPTION ? text : `${text.slice(0, MAX_DESCRIPTION - 1)}…`;
}

function inputLine(entry: WorkflowEntry): string {
  if (entry.input.mode === 'none') return '- `input`: give none; this workflow takes no input.';
  const need = entry.input.mode === 'required' ? 'required' : 'optional';
  return `- \`input\` (string, ${need}): ${inputWords(entry)}.`;
}

function budgetLine(entry: WorkflowEntry): string {
  const fallback =
    entry.default_budget > 0
      ? `${usd(entry.default_budget)}, this workflow's default`
      : "the server's default";
  return `- \`budget\` (number, USD, optional): the most the run may spend; without it, ${fallback}. A run that reaches it stops.`;
}

/**
 * The SKILL.md of one workflow: frontmatter Claude Code reads (`name`,
 * `description`, and `allowed-tools`, which lets the skill call its tools
 * without a permission prompt once it is invoked), and a body that says
 * which tool to call, with what, and how to follow a run that outlives the
 * call or asks a question.
 */
export function skillMarkdown(entry: WorkflowEntry, plugin: string, tool: string): string {
  const full = pluginToolName(plugin, tool);
  const follow = followTools(plugin);
  const front = stringify(
    {
      name: tool,
      description: skillDescription(entry),
      'allowed-tools': [full, ...Object.values(follow)],
    },
    { lineWidth: 0 },
  );
  const body = [
    `# ${entry.name}`,
    '',
    ...(entry.description ? [sentence(entry.description), ''] : []),
    `This is the Raymond workflow \`${entry.id}\`. Run it by calling the MCP tool \`${full}\` with:`,
    '',
    inputLine(entry),
    budgetLine(entry),
    '- `budget_hard` (boolean, optional): true stops the turns running the moment the budget is reached; otherwise they finish, and the run passes its budget by at most one turn.',
    '- `model` (string, optional): the model of its agent steps (`opus`, `sonnet`, `haiku` or a full name).',
    "- `working_directory` (string, optional): the folder the run works in; without it, this session's working directory.",
    '- `wait_seconds` (number, optional): how long the call waits for the run to end or ask before it returns (0: at once).',
    '',
    '## What comes back',
    '',
    "- A finished run: its result. Report it to the user; it is the workflow's answer.",
    `- A run still going when the wait is over: its \`run_id\`. Call \`${follow.raymond_status}\` with \`{"run_id": ...}\` (and \`wait_seconds\` if you like); each call waits again and returns the result once there is one.`,
    `- A question: the run waits for an answer, and the reply carries \`run_id\`, \`ask_id\` and the question. It is for the person, not for you: ask the user (a question about spending or approving always), then call \`${follow.raymond_answer}\` with \`{"run_id": ..., "ask_id": ..., "answer": ...}\` and their words; it goes on and returns as the first call does.`,
    `- To stop a run: \`${follow.raymond_cancel}\` with \`{"run_id": ...}\`.`,
    '',
    ...(entry.requires_human_input
      ? ['This workflow asks questions: expect at least one, and pass it on to the user.', '']
      : []),
    'A failed run says why; tell the user rather than calling the tool again with the same input.',
  ];
  return `---\n${front}---\n\n${body.join('\n')}\n`;
}
