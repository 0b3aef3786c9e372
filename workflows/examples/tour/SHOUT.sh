#!/usr/bin/env bash
echo "<result>$(printf '%s' "$RAYMOND_INPUT" | tr '[:lower:]' '[:upper:]')!</result>"
