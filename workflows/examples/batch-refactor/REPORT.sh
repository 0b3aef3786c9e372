#!/usr/bin/env bash
# Waits for every worker (polling with <reset>, which costs nothing), then reports
# each branch with its commits. Raymond also prints a worktree summary at the end.
set -euo pipefail
expected=${RAYMOND_INPUT:?REPORT.sh needs the number of workers as its input}
top=$(git rev-parse --show-toplevel)
dir="$top/.raymond/worktrees/$RAYMOND_WORKFLOW_ID"
done_count=$(find "$dir" -maxdepth 1 -name '*.done' 2>/dev/null | wc -l | tr -d ' ')
if [ "$done_count" -lt "$expected" ]; then
  echo "<print>waiting for workers: $done_count of $expected done</print>"
  sleep 1
  echo "<reset input=\"$expected\">REPORT.sh</reset>"
  exit 0
fi
rm -f "$dir"/*.done
report=""
for branch in $(git for-each-ref --format='%(refname:short)' "refs/heads/raymond/$RAYMOND_WORKFLOW_ID/"); do
  # A worker that changed nothing has its branch removed as it finishes: skip it if it is gone.
  n=$(git rev-list --count "HEAD..refs/heads/$branch" -- 2>/dev/null) || continue
  [ "$n" -gt 0 ] && report="$report $branch ($n commits);"
done
echo "<result>$expected workers done.${report:- no branch has changes.}</result>"
