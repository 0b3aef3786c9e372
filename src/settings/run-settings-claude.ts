import { RUN_EFFORTS, runModelProblem } from '../agents/registry/registry.js';
import {
  DEFAULT_DISALLOWED_TOOLS,
  MODEL_CHOICES,
  PERMISSION_MODES,
} from '../agents/claude/claude-argv.js';
import { ON_DENIAL_MODES } from '../language/grant.js';
import { bool, listFromFlag, names, oneOf, refuse, setting, text } from './setting.js';

/** Claude Code's permission mode when permissions are not skipped. */
const DEFAULT_PERMISSION_MODE = 'acceptEdits';

/**
 * The run settings of the help group Claude Code, in the order the help, the
 * config template and the reference show them (RUN_SETTINGS merges them).
 */
export const CLAUDE_CODE_SETTINGS = {
  model: setting({
    flag: '--model <model>',
    run: 'model',
    stored: 'model',
    nullable: true,
    scope: 'run',
    group: 'Claude Code',
    help: `model for markdown states whose frontmatter names none: ${MODEL_CHOICES}; on a pi workflow, a pi model (provider/id); on a Codex workflow, a Codex model (gpt-5-codex)`,
    doc: "Model for markdown states whose frontmatter names none (a pi workflow's: provider/id; a Codex workflow's: its model name). Each state's backend checks it.",
    example: '"sonnet"',
    defaultText: "the backend's own",
    check: (v) => {
      if (typeof v !== 'string') return refuse('expected a model name');
      const problem = runModelProblem(v);
      return problem === undefined ? v : refuse(problem);
    },
  }),
  effort: setting({
    flag: '--effort <level>',
    run: 'effort',
    stored: 'effort',
    nullable: true,
    scope: 'run',
    group: 'Claude Code',
    help: "effort for markdown states whose frontmatter names none: Claude Code's low, medium, high; a pi workflow's off, minimal, low, medium, high, xhigh; a Codex workflow's none, minimal, low, medium, high, xhigh, max",
    doc: "Effort for markdown states whose frontmatter names none (Claude Code: low, medium, high; pi: off, minimal, low, medium, high, xhigh; Codex: none, minimal, low, medium, high, xhigh, max). Each state's backend checks it.",
    example: '"medium"',
    defaultText: "the backend's own",
    choices: RUN_EFFORTS,
    check: oneOf(RUN_EFFORTS),
  }),
  dangerously_skip_permissions: setting({
    flag: '--dangerously-skip-permissions',
    run: 'skipPermissions',
    stored: 'dangerously_skip_permissions',
    scope: 'run',
    group: 'Claude Code',
    help: 'let Claude Code run any tool without asking (trusted workflows only)',
    doc: 'Let Claude Code run any tool without asking. Trusted workflows only.',
    example: 'false',
    defaultText: 'false',
    check: bool,
    initial: () => false,
  }),
  permission_mode: setting({
    flag: '--permission-mode <mode>',
    run: 'permissionMode',
    scope: 'process',
    group: 'Claude Code',
    help: "Claude Code's permission mode when permissions are not skipped",
    doc: "Claude Code's permission mode when permissions are not skipped.",
    example: `"${DEFAULT_PERMISSION_MODE}"`,
    defaultText: DEFAULT_PERMISSION_MODE,
    choices: PERMISSION_MODES,
    check: oneOf(PERMISSION_MODES),
  }),
  disallowed_tools: setting({
    flag: '--disallowed-tools <tools>',
    run: 'disallowedTools',
    scope: 'process',
    group: 'Claude Code',
    help: 'tools no Claude Code turn may call, separated by commas ("" for none)',
    doc: 'Tools no Claude Code turn may call (as ray): by default the interactive ones, which hang in -p mode. [] allows every tool.',
    example: `[${DEFAULT_DISALLOWED_TOOLS.map((t) => `"${t}"`).join(', ')}]`,
    defaultText: DEFAULT_DISALLOWED_TOOLS.join(','),
    check: (v): readonly string[] => names('a list of tool names')(v),
    fromFlag: listFromFlag,
    initial: () => DEFAULT_DISALLOWED_TOOLS,
  }),
  tools: setting({
    scope: 'process',
    group: 'Claude Code',
    help: '',
    doc: 'The only built-in tools a markdown state has, unless its workflow or frontmatter says (Claude Code: --tools; pi: --tools). [] gives none.',
    example: '["Read", "Grep", "Glob"]',
    defaultText: 'every built-in tool',
    check: names('a list of tool names'),
  }),
  allowed_tools: setting({
    scope: 'process',
    group: 'Claude Code',
    help: '',
    doc: 'Tools or patterns a markdown state may use without asking, unless its workflow or frontmatter says (Claude Code: --allowedTools).',
    example: '["Bash(git status:*)"]',
    defaultText: '',
    check: names('a list of tools or patterns'),
  }),
  on_denial: setting({
    scope: 'process',
    group: 'Claude Code',
    help: '',
    doc: 'What a tool call the state may not make does: "warn" shows it and counts it, "fail" fails the step (and so the agent).',
    example: '"warn"',
    defaultText: 'warn',
    check: oneOf(ON_DENIAL_MODES),
  }),
  claude_bin: setting({
    flag: '--claude-bin <path>',
    run: 'claudeBin',
    scope: 'process',
    group: 'Claude Code',
    help: 'the Claude Code executable',
    doc: 'The Claude Code executable.',
    example: '"/usr/local/bin/claude"',
    defaultText: 'claude on PATH',
    check: text('a path'),
  }),
  no_warm: setting({
    flag: '--no-warm',
    run: 'warm',
    scope: 'process',
    group: 'Claude Code',
    help: "a new Claude Code process for every turn, instead of keeping an agent's process between turns of one session",
    doc: "Start a new Claude Code process for every turn, instead of keeping an agent's process alive between its turns in one session.",
    example: 'false',
    defaultText: 'false',
    check: bool,
    toRun: (no: boolean) => !no,
    initial: () => true,
  }),
};
