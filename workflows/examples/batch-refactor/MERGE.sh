#!/usr/bin/env bash
# Runs once, when every worker has ended (<join>): its input is their results,
# a JSON array in fork order. Merges their branches into one, each merge checked
# with ./check.sh (when the repository has one); a conflict or a failed check
# goes back to the worker's own Claude Code session to fix. Merged branches are
# deleted; the report is the run's result. A refactor with a failed worker or a
# branch left out is not done: the run fails (exit 1), the report on stderr.
set -uo pipefail
into="raymond/$RAYMOND_WORKFLOW_ID/merged"
workers=$(printf '%s' "$RAYMOND_INPUT" | grep -o '"agent":' | wc -l | tr -d ' ')
failed=$(printf '%s' "$RAYMOND_INPUT" | grep -o '"status":"failed"' | wc -l | tr -d ' ')
check=()
[ -x ./check.sh ] && check=(--check ./check.sh)
errors=$(mktemp)
report=$("$RAYMOND_BIN" merge "$RAYMOND_WORKFLOW_ID" --into "$into" "${check[@]}" --state-dir "$RAYMOND_STATE_DIR" --delete-merged --quiet 2>"$errors")
code=$?
# 1: some branch was left out (the report says which and why); anything else is merge's own failure.
if [ "$code" -gt 1 ]; then
  cat "$errors" >&2
  exit "$code"
fi
rm -f "$errors"
if [ "$code" -eq 1 ] || [ "$failed" -gt 0 ]; then
  left=$([ "$code" -eq 1 ] && echo "; merge left a branch out" || true)
  printf '%s\n' "$report" >&2
  echo "batch refactor incomplete: $workers workers ($failed failed)$left (the report above says which and why)" >&2
  exit 1
fi
echo "<result>$workers workers ($failed failed). $report</result>"
