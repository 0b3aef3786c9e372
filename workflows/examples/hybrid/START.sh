#!/usr/bin/env bash
# A script gathers facts for free; the model only reasons about them.
files=$(find . -maxdepth 2 -type f -name '*.md' -not -path './.raymond/*' | sort | head -20 | tr '\n' ' ')
count=$(printf '%s' "$files" | wc -w | tr -d ' ')
echo "<print>found $count markdown files</print>"
echo "<goto input=\"$files\">SUMMARIZE.md</goto>"
