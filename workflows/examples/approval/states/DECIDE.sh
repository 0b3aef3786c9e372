#!/usr/bin/env bash
# Approved: go on. Anything else is a change request: note it in the plan and ask again.
set -euo pipefail
plan="$RAYMOND_TASK_FOLDER/plan.md"
answer="$(printf '%s' "$RAYMOND_INPUT" | tr '[:upper:]' '[:lower:]' | xargs)"
if [ "$answer" = "approve" ] || [ "$answer" = "approved" ]; then
  echo "<goto>IMPLEMENT.sh</goto>"
else
  printf -- '- Requested: %s\n' "$RAYMOND_INPUT" >> "$plan"
  echo "<ask next=\"DECIDE.sh\">Noted in $plan. Reply approve to carry the plan out, or ask for another change.</ask>"
fi
