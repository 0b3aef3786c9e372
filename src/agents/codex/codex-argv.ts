import type { ResolvedGrant } from '../../executors/resolved-grant.js';
import { OPENAI_PROVIDER, type CodexOptions, type CodexSandbox } from './codex-options.js';
import { codexMcpArgs } from './codex-mcp.js';
import { configArg } from './codex-toml.js';

/**
 * codex's reasoning levels, as `effort:` (and `--effort`) may name them:
 * `ReasoningEffort` of openai/codex (codex-rs/protocol, `none` to `xhigh`,
 * and `max`, which 0.171 takes too). codex 0.171 sends the level as the
 * request's `reasoning.effort` word for word (measured for each); which of
 * them a model takes is the model's business.
 */
export const CODEX_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

/** How one codex turn starts: a new thread, one continued (`exec resume ID`), or a branch of one (`exec fork ID`: a new thread id). */
export type CodexSession =
  { kind: 'fresh' } | { kind: 'resume'; id: string } | { kind: 'fork'; from: string };

/** One codex turn, in Raymond's terms. */
export interface CodexInvocation {
  session: CodexSession;
  /** Passed verbatim with `-m`. */
  model?: string;
  effort?: string;
  /** The run's --dangerously-skip-permissions. */
  skipPermissions: boolean;
  options: CodexOptions;
  grant?: ResolvedGrant;
}

/** A state's `permission_mode` (Claude Code's words) as a codex sandbox. */
export function sandboxOf(permissionMode: string): CodexSandbox {
  if (permissionMode === 'plan') return 'read-only';
  if (permissionMode === 'bypassPermissions') return 'danger-full-access';
  return 'workspace-write';
}

/**
 * The sandbox flags of a turn. codex does not keep a thread's sandbox: a
 * resumed thread runs under what this turn says (measured: a thread begun
 * in workspace-write resumed read-only without `--sandbox`), so every turn
 * says it.
 */
function sandboxArgs(inv: CodexInvocation): string[] {
  if (inv.skipPermissions) return ['--dangerously-bypass-approvals-and-sandbox'];
  const mode = inv.grant?.permissionMode;
  const sandbox = mode !== undefined ? sandboxOf(mode) : (inv.options.sandbox ?? 'workspace-write');
  return ['--sandbox', sandbox];
}

/** The provider flags of the workflow's options (see CodexOptions.base_url). */
function providerArgs(o: CodexOptions): string[] {
  const args: string[] = [];
  if (o.provider !== undefined) args.push(...configArg('model_provider', o.provider));
  if (o.base_url !== undefined) {
    if (o.provider === undefined || o.provider === OPENAI_PROVIDER)
      args.push(...configArg('openai_base_url', o.base_url));
    else
      args.push(
        ...configArg(`model_providers.${o.provider}.name`, o.provider),
        ...configArg(`model_providers.${o.provider}.base_url`, o.base_url),
      );
  }
  return args;
}

/**
 * codex's argv for one turn: `exec --json` with every option before the
 * `resume`/`fork` subcommand (which take few of their own: codex applies
 * `exec`'s to them, measured), then `-`.
 *
 * The prompt is never in it: it goes on stdin (`-`). codex 0.171 sends a
 * stdin prompt verbatim (measured: `-x @/etc/hostname hello` reached the
 * model as written, neither read as a flag nor expanded as a file), while an
 * argument beginning with `-` would be read as a flag. No `-C`: codex works
 * in its process's directory, a resumed thread too (measured: `pwd` in a
 * thread resumed from another folder printed that folder).
 */
export function codexArgs(inv: CodexInvocation): string[] {
  const o = inv.options;
  const g = inv.grant;
  // Outside a git repository codex refuses to run without --skip-git-repo-check.
  const args = ['exec', '--json', '--skip-git-repo-check', ...sandboxArgs(inv)];
  if (o.profile !== undefined) args.push('--profile', o.profile);
  if (inv.model !== undefined) args.push('--model', inv.model);
  args.push(...providerArgs(o));
  if (inv.effort !== undefined) args.push(...configArg('model_reasoning_effort', inv.effort));
  // codex's own key for text added to its instructions: a developer message of a new thread (see codexPrompt).
  if (g?.appendSystemPrompt !== undefined && inv.session.kind === 'fresh')
    args.push(...configArg('developer_instructions', g.appendSystemPrompt));
  if (g?.mcpConfig !== undefined) args.push(...codexMcpArgs(g.mcpConfig));
  for (const dir of g?.addDirs ?? []) args.push('--add-dir', dir);
  for (const [path, value] of Object.entries(o.config ?? {})) args.push(...configArg(path, value));
  if (inv.session.kind === 'resume') args.push('resume', inv.session.id);
  if (inv.session.kind === 'fork') args.push('fork', inv.session.from);
  args.push('-');
  return args;
}

/**
 * What a turn writes on codex's stdin. codex takes `developer_instructions`
 * only when a thread begins: a resumed or forked thread keeps those it
 * began with (measured on 0.171: `-c developer_instructions=...` given to
 * `exec resume` or `exec fork` reached no request). So on those turns a
 * state's appended system prompt comes ahead of the prompt, marked as such.
 */
export function codexPrompt(
  prompt: string,
  session: CodexSession,
  appendSystemPrompt: string | undefined,
): string {
  if (appendSystemPrompt === undefined || session.kind === 'fresh') return prompt;
  return `<system_instructions>\n${appendSystemPrompt}\n</system_instructions>\n\n${prompt}`;
}
