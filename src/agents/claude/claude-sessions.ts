import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** Claude Code's folder: CLAUDE_CONFIG_DIR, else ~/.claude. */
function claudeDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLAUDE_CONFIG_DIR || join(homedir(), '.claude');
}

/**
 * Claude Code's project folder name for a directory (measured on 2.1.330):
 * every UTF-16 unit but a letter or a digit becomes `-`; a name over 200
 * characters is cut there and given a hash of the whole path.
 */
export function projectFolderName(cwd: string): string {
  const name = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  if (name.length <= 200) return name;
  let h = 0;
  for (let i = 0; i < cwd.length; i++) h = ((h << 5) - h + cwd.charCodeAt(i)) | 0;
  return `${name.slice(0, 200)}-${Math.abs(h).toString(36)}`;
}

/** Where Claude Code keeps the transcript of a session run in `cwd`. */
export function transcriptPath(
  cwd: string,
  session: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  return join(claudeDir(env), 'projects', projectFolderName(cwd), `${session}.jsonl`);
}

/**
 * The transcript of a session: in the project folder of `cwd`, where it
 * ran last, else in any other project folder (a worktree moved, a run
 * resumed elsewhere).
 */
export function findTranscript(
  session: string,
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const own = transcriptPath(cwd, session, env);
  if (existsSync(own)) return own;
  const projects = dirname(dirname(own));
  const names = existsSync(projects) ? readdirSync(projects) : [];
  return names.map((n) => join(projects, n, `${session}.jsonl`)).find((p) => existsSync(p));
}
