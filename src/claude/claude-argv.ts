import type { SessionPlan } from '../executors/executor.js';

export interface ClaudeInvocation {
  prompt: string;
  session: SessionPlan;
  model?: string | undefined;
  effort?: string | undefined;
  skipPermissions: boolean;
}

/**
 * The argv of one `claude` turn. The prompt is one argument after `--`, so no
 * prompt text can ever be read as a flag, and nothing goes through a shell.
 */
export function claudeArgs(inv: ClaudeInvocation): string[] {
  const args = ['-p', '--output-format', 'stream-json', '--verbose'];
  args.push(...(inv.skipPermissions ? ['--dangerously-skip-permissions'] : ['--permission-mode', 'acceptEdits']));
  if (inv.model) args.push('--model', inv.model);
  if (inv.effort) args.push('--effort', inv.effort);
  if (inv.session.kind === 'resume') args.push('--resume', inv.session.session);
  if (inv.session.kind === 'branch') args.push('--resume', inv.session.from, '--fork-session');
  if (inv.session.kind !== 'resume' && inv.session.id) args.push('--session-id', inv.session.id);
  args.push('--', inv.prompt);
  return args;
}

/** The session a plan continues from, whose earlier cost is already paid. */
export function parentSession(plan: SessionPlan): string | undefined {
  return plan.kind === 'resume' ? plan.session : plan.kind === 'branch' ? plan.from : undefined;
}

export const MODELS = ['opus', 'sonnet', 'haiku'] as const;
export const EFFORTS = ['low', 'medium', 'high'] as const;
