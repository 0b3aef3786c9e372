#!/usr/bin/env bash
# <reset> starts the state again with a fresh session but keeps the return stack,
# so the final <result> still returns to the caller.
n=${RAYMOND_INPUT:-0}
if [ "$n" -gt 0 ]; then
  echo "<print>countdown: $n</print>"
  echo "<reset input=\"$((n - 1))\">COUNTDOWN</reset>"
else
  echo "<result>liftoff</result>"
fi
