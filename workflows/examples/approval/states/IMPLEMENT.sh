#!/usr/bin/env bash
# Stands in for the work itself: a real package would run a model or a tool here.
set -euo pipefail
echo "<result>implemented: $(cat "$RAYMOND_TASK_FOLDER/change.txt") (plan $RAYMOND_TASK_FOLDER/plan.md)</result>"
