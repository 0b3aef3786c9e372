import type { AgentRecord } from './types.js';
import type { WorktreeStart } from './worktree-types.js';

/**
 * The agent's record with where its next step starts in its worktree (a
 * tree held only while the folder has uncommitted work, so an old one goes
 * when none is given). A record with no worktree, or one whose branch was
 * removed, is returned as it is.
 */
export function withStart(record: AgentRecord, start: WorktreeStart | undefined): AgentRecord {
  const w = record.worktree;
  if (!start || !w || w.removed) return record;
  const { from_tree: _old, ...rest } = w;
  return { ...record, worktree: { ...rest, ...start } };
}
