#!/usr/bin/env bash
# Writes the plan into the agent's task folder, then asks for approval.
set -euo pipefail
plan="$RAYMOND_TASK_FOLDER/plan.md"
printf '# Plan: %s\n\n1. Find every use.\n2. Change them in one commit.\n3. Run the tests.\n' "$RAYMOND_INPUT" > "$plan"
printf '%s\n' "$RAYMOND_INPUT" > "$RAYMOND_TASK_FOLDER/change.txt"
echo "<ask next=\"DECIDE.sh\">Plan for \"$RAYMOND_INPUT\" is in $plan: three steps (find, change, test). Reply approve to carry it out, or say what to change.</ask>"
