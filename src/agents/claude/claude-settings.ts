import type { AnySetting } from '../../setting.js';
import { bool, listFromFlag, names, oneOf, setting, text } from '../../setting.js';
import { DEFAULT_DISALLOWED_TOOLS, PERMISSION_MODES } from './claude-argv.js';

/** Claude Code's permission mode when permissions are not skipped. */
export const DEFAULT_PERMISSION_MODE = 'acceptEdits';

/**
 * Claude Code's own run settings: flags and config keys that only its turns
 * read. The settings table lists them under its title (the registry brings
 * them in); their values reach its executor in `BackendRuntime.settings`.
 */
export const CLAUDE_SETTINGS = {
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
  claude_bin: setting({
    flag: '--claude-bin <path>',
    run: 'claudeBin',
    scope: 'process',
    perMachine: true,
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
} satisfies Record<string, AnySetting>;

/** Claude Code's settings as a run holds them (by their `run` names). */
export interface ClaudeRunSettings {
  /** `--claude-bin`; else `claude` on PATH. */
  claudeBin?: string;
  /** `--permission-mode`; else DEFAULT_PERMISSION_MODE (unless permissions are skipped). */
  permissionMode?: string;
  /** `--disallowed-tools`; else DEFAULT_DISALLOWED_TOOLS. */
  disallowedTools: readonly string[];
  /** Keep an agent's process between its turns (`--no-warm` turns it off). */
  warm: boolean;
}

/**
 * Claude Code's settings out of the run's backend settings (values the
 * table checked, or a queue job's, signed by the run that checked them);
 * what is not given is its default.
 */
export function claudeSettingsOf(values: Readonly<Record<string, unknown>>): ClaudeRunSettings {
  const bin = values.claudeBin;
  const mode = values.permissionMode;
  const disallowed = values.disallowedTools;
  return {
    ...(typeof bin === 'string' ? { claudeBin: bin } : {}),
    ...(typeof mode === 'string' ? { permissionMode: mode } : {}),
    disallowedTools: Array.isArray(disallowed)
      ? disallowed.filter((t): t is string => typeof t === 'string')
      : DEFAULT_DISALLOWED_TOOLS,
    warm: values.warm !== false,
  };
}
