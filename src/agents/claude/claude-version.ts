import { execa } from 'execa';
import { RaymondError } from '../../errors.js';
import { FALLBACK_LIST } from './claude-argv.js';

/**
 * The oldest Claude Code Raymond runs on: the oldest version it is tested
 * against (end to end, a `<call>` workflow), and the first with every flag
 * Raymond always passes (`--tools`, `--effort`, `--session-id`,
 * `--fork-session`, `--strict-mcp-config`). Newer flags are passed only
 * to a Claude Code that lists them (see `claudeCli`).
 */
export const OLDEST_CLAUDE_CODE = '2.1.197';

/** What the installed Claude Code is, learnt once per process from its `--version` and `--help`. */
export interface ClaudeCli {
  /** `2.1.330`, as `--version` prints it. */
  version: string;
  /** Every `--flag` its `--help` lists: a flag it does not list is never passed. */
  flags: ReadonlySet<string>;
}

const learnt = new Map<string, Promise<ClaudeCli>>();

/** Claude Code starts in seconds even under load; a broken install is caught well before this. */
const TIMEOUT_MS = 30_000;

/** `a` compared with `b`, as dotted numbers (`2.1.197` < `2.1.330`). */
export function compareVersions(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => v.split('.').map((n) => Number.parseInt(n, 10) || 0));
  for (let i = 0; i < Math.max(x!.length, y!.length); i++) {
    const d = (x![i] ?? 0) - (y![i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The flags a `--help` text lists (`--disallowedTools, --disallowed-tools
 * <tools...>` gives both), and FALLBACK_LIST when its `--fallback-model`
 * takes a comma-separated list.
 */
export function helpFlags(help: string): Set<string> {
  const flags = new Set(help.match(/(?<![\w-])--[a-z][a-zA-Z0-9-]*/g) ?? []);
  // The flag's description runs over the lines up to the next flag.
  const fallback = /--fallback-model\b[\s\S]*?(?=\n\s*--|$)/.exec(help)?.[0] ?? '';
  if (/comma-separated/i.test(fallback)) flags.add(FALLBACK_LIST);
  return flags;
}

/**
 * The Claude Code at `bin`, asked once per process (a run, a queue worker):
 * refused in one line when it does not answer or is older than
 * OLDEST_CLAUDE_CODE, before any state runs.
 */
export function claudeCli(bin: string, env: NodeJS.ProcessEnv = process.env): Promise<ClaudeCli> {
  let cli = learnt.get(bin);
  if (!cli) {
    const ask = (arg: string) =>
      execa(bin, [arg], { reject: false, stdin: 'ignore', timeout: TIMEOUT_MS, env });
    cli = Promise.all([ask('--version'), ask('--help')]).then(([v, h]) => {
      const version = /\d+\.\d+\.\d+/.exec(String(v.stdout))?.[0];
      if (v.exitCode !== 0 || version === undefined)
        throw new RaymondError(
          'ERR_CLAUDE_NOT_FOUND',
          `${bin} --version failed (${v.timedOut ? `no answer in ${TIMEOUT_MS / 1000} s` : `exit ${v.exitCode ?? v.signal}`}): reinstall Claude Code with npm install -g @anthropic-ai/claude-code`,
        );
      if (compareVersions(version, OLDEST_CLAUDE_CODE) < 0)
        throw new RaymondError(
          'ERR_CLAUDE_NOT_FOUND',
          `Claude Code ${version} (${bin}) is older than ${OLDEST_CLAUDE_CODE}, the oldest Raymond runs on: update it with npm install -g @anthropic-ai/claude-code`,
        );
      return { version, flags: helpFlags(String(h.stdout)) };
    });
    // A failed check is asked again next time: the user may fix the install while a server runs.
    cli.catch(() => learnt.delete(bin));
    learnt.set(bin, cli);
  }
  return cli;
}
