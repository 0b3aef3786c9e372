#!/usr/bin/env bash
# Back in this workflow with the callee's result; now fork one count-words
# agent per line (each is named after the workflow: main_countw1, ...) and go on.
echo "<print>count-words returned: $RAYMOND_INPUT</print>"
for line in "jumps over" "the lazy dog"; do
  echo "<fork-workflow input=\"$line\">../count-words/</fork-workflow>"
done
echo "<goto input=\"$RAYMOND_INPUT\">DONE.sh</goto>"
