import { isAbsolute, resolve } from 'node:path';
import { executable, searchPath } from '../../executors/find-executable.js';
import { RaymondError } from '../../errors.js';

/**
 * Finds the `claude` executable: the explicit path if given (`--claude-bin`),
 * else `claude` on PATH. A missing binary is a clear error, not a retry.
 */
export function findClaude(
  explicit: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string {
  if (explicit) {
    const path = isAbsolute(explicit) || explicit.includes('/') ? resolve(explicit) : undefined;
    if (path && executable(path)) return path;
    if (!path) {
      const found = searchPath(explicit, env);
      if (found) return found;
    }
    throw new RaymondError(
      'ERR_CLAUDE_NOT_FOUND',
      `--claude-bin ${explicit}: not an executable file`,
    );
  }
  const found = searchPath('claude', env);
  if (found) return found;
  throw new RaymondError(
    'ERR_CLAUDE_NOT_FOUND',
    'claude (Claude Code) is not on PATH: install it (npm install -g @anthropic-ai/claude-code) or pass --claude-bin PATH',
  );
}
