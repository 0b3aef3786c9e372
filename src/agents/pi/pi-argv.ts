import type { PiOptions } from './pi-options.js';

/** pi's thinking levels: what `effort:` (and `backend.options.thinking`) may say in a pi workflow. */
export const PI_THINKING = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;

/** pi's built-in tools less `bash`: a pi turn's tools unless the workflow lists its own or permissions are skipped (as `ray`). */
export const SAFE_PI_TOOLS = ['read', 'edit', 'write', 'grep', 'find', 'ls'] as const;

/** Claude Code's names of the built-in tools pi has too, so one `tools:` list holds on both. */
const PI_TOOL_NAMES: Readonly<Record<string, string>> = {
  read: 'read',
  edit: 'edit',
  write: 'write',
  bash: 'bash',
  grep: 'grep',
  glob: 'find',
  find: 'find',
  ls: 'ls',
};

/** A state's `tools:` as pi's names (`Read` → `read`, `Glob` → `find`); call piToolProblem first. */
export function piTools(tools: readonly string[]): string[] {
  return [...new Set(tools.map((t) => PI_TOOL_NAMES[t.toLowerCase()]!))];
}

/** Why pi cannot give exactly these tools, if it cannot: a pattern, or a tool it does not have. */
export function piToolProblem(tools: readonly string[]): string | undefined {
  const pattern = tools.find((t) => t.includes('('));
  if (pattern !== undefined) return `"${pattern}" is a pattern; pi takes tool names only`;
  const unknown = tools.find((t) => !Object.hasOwn(PI_TOOL_NAMES, t.toLowerCase()));
  return unknown === undefined
    ? undefined
    : `pi has no tool "${unknown}"; it has ${Object.keys(PI_TOOL_NAMES).join(', ')}`;
}

/** How one pi turn starts: a new session, one continued (`--session FILE|ID`), or a branch of one (`--fork ID`). */
export type PiSession =
  { kind: 'fresh' } | { kind: 'resume'; ref: string } | { kind: 'fork'; from: string };

/** One pi turn, in Raymond's terms. */
export interface PiInvocation {
  session: PiSession;
  model?: string;
  /** The state's effort, else `options.thinking`. */
  thinking?: string;
  skipPermissions: boolean;
  options: PiOptions;
  /** The state's `tools:` (checked with piToolProblem): they replace the workflow's options; `[]` is none. */
  tools?: readonly string[];
  /** The state's `append_system_prompt`, as text. */
  appendSystemPrompt?: string;
}

/**
 * pi's argv for one turn, as `ray` maps a workflow's options (pi-backend.md).
 * The prompt is not in it: it goes on stdin, so that no prompt is ever read
 * as a flag or, beginning with `@`, as a file to send to the model provider.
 */
export function piArgs(inv: PiInvocation): string[] {
  const o = inv.options;
  const args = ['--mode', 'json'];
  if (o.session_dir !== undefined) args.push('--session-dir', o.session_dir);
  if (o.provider !== undefined) args.push('--provider', o.provider);
  if (inv.model !== undefined) args.push('--model', inv.model);
  const thinking = inv.thinking ?? o.thinking;
  if (thinking !== undefined) args.push('--thinking', thinking);
  if (inv.session.kind === 'resume') args.push('--session', inv.session.ref);
  if (inv.session.kind === 'fork') args.push('--fork', inv.session.from);
  if (inv.tools !== undefined)
    args.push(
      ...(inv.tools.length === 0 ? ['--no-tools'] : ['--tools', piTools(inv.tools).join(',')]),
    );
  else if (o.no_tools) args.push('--no-tools');
  else if (o.no_builtin_tools) args.push('--no-builtin-tools');
  else if (o.tools) args.push('--tools', o.tools.join(','));
  // Skipped permissions: pi's own default tools (bash among them), as `ray` does.
  else if (!inv.skipPermissions) args.push('--tools', SAFE_PI_TOOLS.join(','));
  for (const e of o.extensions ?? []) args.push('--extension', e);
  for (const s of o.skills ?? []) args.push('--skill', s);
  if (o.no_extensions) args.push('--no-extensions');
  if (o.no_skills) args.push('--no-skills');
  if (inv.appendSystemPrompt !== undefined)
    args.push('--append-system-prompt', inv.appendSystemPrompt);
  return args;
}
