import type { SessionPlan } from '../executors/executor.js';

export interface ClaudeInvocation {
  /** Undefined for a live process, which takes its prompts as messages on stdin. */
  prompt: string | undefined;
  session: SessionPlan;
  model?: string | undefined;
  effort?: string | undefined;
  skipPermissions: boolean;
  /** `--permission-mode` when permissions are not skipped; default acceptEdits. */
  permissionMode?: string | undefined;
  /** `--disallowed-tools`; none when empty. */
  disallowedTools?: readonly string[] | undefined;
}

/**
 * Tools a `-p` turn must not call, as `ray` denies them: each waits for a
 * person who is not there (plan mode, a question to the user) or edits
 * notebooks behind the workflow's back. `--disallowed-tools` replaces the list.
 */
export const DEFAULT_DISALLOWED_TOOLS: readonly string[] = ['EnterPlanMode', 'ExitPlanMode', 'AskUserQuestion', 'NotebookEdit'];

/** Claude Code's permission modes (its `--permission-mode` choices). */
export const PERMISSION_MODES = ['acceptEdits', 'auto', 'bypassPermissions', 'manual', 'dontAsk', 'plan', 'default'] as const;

/**
 * Prompts larger than this go to Claude Code on stdin instead of in argv:
 * Linux takes at most 128 KiB in one argument (and about 2 MB in argv and
 * the environment together), Windows 32,767 characters in a command line.
 */
export const MAX_ARGV_PROMPT_BYTES = process.platform === 'win32' ? 16 * 1024 : 64 * 1024;

/** Whether a prompt is too large for argv and goes on stdin. */
export function promptOnStdin(prompt: string): boolean {
  // Up to three bytes a character: most prompts are known to fit without counting.
  return prompt.length * 3 > MAX_ARGV_PROMPT_BYTES && Buffer.byteLength(prompt) > MAX_ARGV_PROMPT_BYTES;
}

/**
 * The argv of one `claude` turn. The prompt is one argument after `--`, so no
 * prompt text can ever be read as a flag, and nothing goes through a shell;
 * a prompt too large for argv is left out, for stdin (see promptOnStdin).
 */
export function claudeArgs(inv: ClaudeInvocation): string[] {
  const args = ['-p', '--output-format', 'stream-json', '--verbose'];
  args.push(...(inv.skipPermissions ? ['--dangerously-skip-permissions'] : ['--permission-mode', inv.permissionMode ?? 'acceptEdits']));
  if (inv.disallowedTools?.length) args.push('--disallowed-tools', inv.disallowedTools.join(','));
  if (inv.model) args.push('--model', inv.model);
  if (inv.effort) args.push('--effort', inv.effort);
  if (inv.session.kind === 'resume') args.push('--resume', inv.session.session);
  if (inv.session.kind === 'branch') args.push('--resume', inv.session.from, '--fork-session');
  if (inv.session.kind === 'continue') args.push('--continue', '--fork-session');
  if (inv.session.kind !== 'resume' && inv.session.id) args.push('--session-id', inv.session.id);
  if (inv.prompt !== undefined && !promptOnStdin(inv.prompt)) args.push('--', inv.prompt);
  return args;
}

/** The session a plan continues from, whose earlier cost is already paid. */
export function parentSession(plan: SessionPlan): string | undefined {
  return plan.kind === 'resume' ? plan.session : plan.kind === 'branch' ? plan.from : undefined;
}

export const MODELS = ['opus', 'sonnet', 'haiku'] as const;

/** What `--model`, `model =` and a state's `model:` take, said in messages. */
export const MODEL_CHOICES = `${MODELS.join(', ')} or a full model name (claude-...)`;

/** An alias Claude Code knows, or a full model name as `ray` passes them through (`claude-sonnet-4-5-20250929`). */
export function isModelName(name: string): boolean {
  return (MODELS as readonly string[]).includes(name) || /^claude-[a-z0-9][a-z0-9.-]*[a-z0-9](\[[a-z0-9]+\])?$/.test(name);
}
export const EFFORTS = ['low', 'medium', 'high'] as const;

/**
 * A model a run-wide setting (`--model`, the config's `model`) may name:
 * Claude Code's, or a pi model as `provider/id`. Which one the run's
 * workflow takes is checked when it starts.
 */
export function isRunModel(name: string): boolean {
  return isModelName(name) || /^[^\s/]+\/\S+$/.test(name);
}
