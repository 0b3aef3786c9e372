#!/usr/bin/env bash
# A workflow of its own: runnable alone (raymond count-words --input "a b"),
# called, or forked by another.
words=$(printf '%s' "$RAYMOND_INPUT" | wc -w | tr -d ' ')
echo "<result>$words words in '$RAYMOND_INPUT' (agent $RAYMOND_AGENT_ID)</result>"
