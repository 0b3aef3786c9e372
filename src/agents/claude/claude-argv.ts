import type { SessionPlan } from '../../executors/executor.js';
import type { ResolvedGrant } from '../../executors/resolved-grant.js';

export interface ClaudeInvocation {
  /** Undefined for a live process, which takes its prompts as messages on stdin. */
  prompt: string | undefined;
  session: SessionPlan;
  model?: string;
  /** `--fallback-model`: Claude Code goes on with these, in order, when the model is overloaded or unavailable. */
  fallbackModels?: readonly string[];
  effort?: string;
  skipPermissions: boolean;
  /** `--permission-mode` when permissions are not skipped; default acceptEdits. */
  permissionMode?: string;
  /** `--disallowed-tools`; none when empty. */
  disallowedTools?: readonly string[];
  /** The state's grant: its tools, MCP servers, system prompt and directories. */
  grant?: ResolvedGrant;
  /** The flags the installed Claude Code lists (claude-version.ts); absent: every flag Raymond knows. */
  flags?: ReadonlySet<string>;
}

/**
 * Tools a `-p` turn must not call, as `ray` denies them: each waits for a
 * person who is not there (plan mode, a question to the user) or edits
 * notebooks behind the workflow's back. `--disallowed-tools` replaces the list.
 */
export const DEFAULT_DISALLOWED_TOOLS: readonly string[] = [
  'EnterPlanMode',
  'ExitPlanMode',
  'AskUserQuestion',
  'NotebookEdit',
];

import { toolName } from '../../language/grant.js';
export { PERMISSION_MODES } from '../../language/grant.js';

/**
 * Prompts larger than this go to Claude Code on stdin instead of in argv:
 * Linux takes at most 128 KiB in one argument (and about 2 MB in argv and
 * the environment together), Windows 32,767 characters in a command line.
 */
export const MAX_ARGV_PROMPT_BYTES = process.platform === 'win32' ? 16 * 1024 : 64 * 1024;

/** Whether a prompt is too large for argv and goes on stdin. */
export function promptOnStdin(prompt: string): boolean {
  // Up to three bytes a character: most prompts are known to fit without counting.
  return (
    prompt.length * 3 > MAX_ARGV_PROMPT_BYTES && Buffer.byteLength(prompt) > MAX_ARGV_PROMPT_BYTES
  );
}

/**
 * The argv of one `claude` turn. The prompt is one argument after `--`, so no
 * prompt text can ever be read as a flag, and nothing goes through a shell;
 * a prompt too large for argv is left out, for stdin (see promptOnStdin).
 */
export function claudeArgs(inv: ClaudeInvocation): string[] {
  const args = ['-p', '--output-format', 'stream-json', '--verbose'];
  const g = inv.grant;
  // A state's own permission_mode beats the run's; --dangerously-skip-permissions beats both, but never `tools`.
  args.push(
    ...(inv.skipPermissions
      ? ['--dangerously-skip-permissions']
      : ['--permission-mode', g?.permissionMode ?? inv.permissionMode ?? 'acceptEdits']),
  );
  const disallowed = [...new Set([...(inv.disallowedTools ?? []), ...(g?.disallowedTools ?? [])])];
  if (disallowed.length) args.push('--disallowed-tools', disallowed.join(','));
  // --tools takes names only: `Bash(git *)` in `tools` gives Bash, pre-approved for that pattern alone.
  if (g?.tools) args.push('--tools', [...new Set(g.tools.map(toolName))].join(','));
  const allowed = [
    ...new Set([...(g?.tools ?? []).filter((t) => t.includes('(')), ...(g?.allowedTools ?? [])]),
  ];
  if (allowed.length) args.push('--allowed-tools', allowed.join(','));
  if (g?.mcpConfig !== undefined) args.push('--mcp-config', g.mcpConfig);
  // A state that names its servers or its tools gets no MCP server of the user's, unless it says mcp_inherit.
  if (g && (g.mcpConfig !== undefined || g.tools !== undefined) && !g.mcpInherit)
    args.push('--strict-mcp-config');
  if (g?.appendSystemPrompt !== undefined)
    args.push('--append-system-prompt', g.appendSystemPrompt);
  if (g?.addDirs?.length) args.push('--add-dir', ...g.addDirs);
  if (inv.model) args.push('--model', inv.model);
  const fallbacks = fallbackModels(inv);
  if (fallbacks) args.push('--fallback-model', fallbacks);
  if (inv.effort) args.push('--effort', inv.effort);
  if (inv.session.kind === 'resume') args.push('--resume', inv.session.session);
  if (inv.session.kind === 'branch') args.push('--resume', inv.session.from, '--fork-session');
  if (inv.session.kind === 'continue') args.push('--continue', '--fork-session');
  if (inv.session.kind !== 'resume' && inv.session.id) args.push('--session-id', inv.session.id);
  // A resumed session reuses its first turn's system prompt and tool list unless told not to: each state's
  // grant must be its own. A Claude Code without the flag (2.1.197) has no snapshot to turn off.
  if ((g || inv.session.kind !== 'fresh') && (inv.flags?.has('--system-prompt-snapshot') ?? true))
    args.push('--system-prompt-snapshot', 'off');
  if (inv.prompt !== undefined && !promptOnStdin(inv.prompt)) args.push('--', inv.prompt);
  return args;
}

/**
 * What `--fallback-model` is given: the whole list where this Claude Code
 * takes one (`FALLBACK_LIST`), else the first model alone (the markdown step
 * moves on to the others itself); nothing where it has no such flag.
 */
function fallbackModels(inv: ClaudeInvocation): string | undefined {
  const models = inv.fallbackModels ?? [];
  if (models.length === 0 || inv.flags?.has('--fallback-model') === false) return undefined;
  return (inv.flags?.has(FALLBACK_LIST) ?? true) ? models.join(',') : models[0];
}

/**
 * Not a flag: what claudeCli adds to a Claude Code's flags when its help
 * says `--fallback-model` takes a comma-separated list (2.1.330 does; older
 * versions took one model).
 */
export const FALLBACK_LIST = '--fallback-model=list';

export const MODELS = ['opus', 'sonnet', 'haiku'] as const;

/** What `--model`, `model =` and a state's `model:` take, said in messages. */
export const MODEL_CHOICES = `${MODELS.join(', ')} or a full model name (claude-...)`;

/** An alias Claude Code knows, or a full model name as `ray` passes them through (`claude-sonnet-4-5-20250929`). */
export function isModelName(name: string): boolean {
  return (
    (MODELS as readonly string[]).includes(name) ||
    /^claude-[a-z0-9][a-z0-9.-]*[a-z0-9](\[[a-z0-9]+\])?$/.test(name)
  );
}
export const EFFORTS = ['low', 'medium', 'high'] as const;
