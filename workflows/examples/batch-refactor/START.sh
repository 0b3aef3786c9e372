#!/usr/bin/env bash
# Dispatcher: one worker per target, each on its own git branch, in a worktree folder
# from Raymond's pool (about --max-parallel folders, however many targets), then one
# <join>: MERGE.sh runs once every worker has ended, with their results.
# Targets come from --input (separated by spaces, commas or new lines) or, without
# input, from targets.txt in the directory raymond runs in.
set -euo pipefail
if [ -n "${RAYMOND_INPUT:-}" ]; then
  targets=$(printf '%s' "$RAYMOND_INPUT" | tr ',\n' '  ')
elif [ -f targets.txt ]; then
  targets=$(grep -v '^[[:space:]]*#' targets.txt | tr '\n' ' ')
else
  echo "give the targets with --input or in targets.txt" >&2
  exit 2
fi
count=0
for target in $targets; do
  count=$((count + 1))
  # A folder target (a package of a monorepo) gets a sparse checkout of that folder
  # and the top-level files only; a file target gets the whole tree.
  if [ -d "$target" ]; then
    echo "<fork worktree=\"$target\" sparse=\"${target%/}\" target=\"$target\">WORKER.md</fork>"
  else
    echo "<fork worktree=\"$target\" target=\"$target\">WORKER.md</fork>"
  fi
done
if [ "$count" -eq 0 ]; then
  echo "<result>no targets: nothing to do</result>"
else
  echo "<print>dispatched $count workers</print>"
  echo "<join>MERGE.sh</join>"
fi
