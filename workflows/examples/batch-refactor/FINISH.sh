#!/usr/bin/env bash
# Leave a marker beside the worktrees so the report knows this worker is done.
set -euo pipefail
last=$(git log -1 --format=%s)
touch "$(dirname "$RAYMOND_WORKTREE")/$RAYMOND_AGENT_ID.done"
echo "<result>$target: $last</result>"
