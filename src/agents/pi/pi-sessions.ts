import { existsSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { PiOptions } from './pi-options.js';

/** pi's own folder: PI_CODING_AGENT_DIR, else ~/.pi/agent. */
function agentDir(env: NodeJS.ProcessEnv): string {
  return env.PI_CODING_AGENT_DIR || join(homedir(), '.pi', 'agent');
}

/** pi's session folder for a directory (its mangling, read from pi 0.74's source): `--tmp-x-y--` for `/tmp/x/y`. */
export function piSessionFolder(
  cwd: string,
  options: PiOptions,
  env: NodeJS.ProcessEnv = process.env,
): string {
  if (options.session_dir !== undefined) return options.session_dir;
  return join(
    agentDir(env),
    'sessions',
    `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`,
  );
}

/**
 * The file of a pi session, found by its id (pi names files
 * `<time>_<id>.jsonl`). Continuing by file rather than id matters: given an
 * id whose session began in another directory, pi asks on the terminal
 * whether to fork it, and with no terminal does nothing.
 */
export function findPiSession(
  id: string,
  options: PiOptions,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const suffix = `_${id}.jsonl`;
  const roots =
    options.session_dir !== undefined
      ? [options.session_dir]
      : subfolders(join(agentDir(env), 'sessions'));
  for (const dir of roots) {
    const hit = existsSync(dir) ? readdirSync(dir).find((f) => f.endsWith(suffix)) : undefined;
    if (hit) return join(dir, hit);
  }
  return undefined;
}

function subfolders(dir: string): string[] {
  return existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => join(dir, d.name))
    : [];
}

/** The id of the newest pi session of a directory (`--continue-session`), if it has one. */
export function latestPiSession(
  cwd: string,
  options: PiOptions,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const dir = piSessionFolder(cwd, options, env);
  if (!existsSync(dir)) return undefined;
  const newest = readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => ({ f, at: statSync(join(dir, f)).mtimeMs }))
    .sort((a, b) => b.at - a.at)[0];
  return newest ? newest.f.slice(newest.f.lastIndexOf('_') + 1, -'.jsonl'.length) : undefined;
}
