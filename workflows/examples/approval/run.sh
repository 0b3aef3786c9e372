#!/usr/bin/env bash
# Entry point of the approval skill package: the only thing a caller runs.
# `run` starts it, `resume` hands it an answer; Raymond's exit code passes
# straight through (exec): 0 done, 1 failed, 2 asking (JSON on stdout).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "$0")" && pwd)"

case "${1:-run}" in
  run)
    exec ray "$SCRIPT_DIR/states" \
      --on-ask=pause \
      --budget "${BUDGET:-1.00}" \
      ${INPUT:+--input "$INPUT"}
    ;;
  resume)
    exec ray \
      --resume "$RUN_ID" \
      --input "$INPUT"
    ;;
  *)
    echo "Usage: run.sh [run|resume]" >&2
    exit 1
    ;;
esac
