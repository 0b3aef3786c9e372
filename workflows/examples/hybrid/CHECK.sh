#!/usr/bin/env bash
# Deterministic checks stay in scripts: did the model really write the file?
if [ -s summary.txt ]; then
  echo "<result>$(head -n 1 summary.txt)</result>"
else
  echo "summary.txt is missing or empty" >&2
  exit 1
fi
