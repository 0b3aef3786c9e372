#!/usr/bin/env bash
# Fork attributes reach scripts as environment variables, on every state of the worker.
echo "<result>$fruit has ${#fruit} letters (worker $RAYMOND_AGENT_ID)</result>"
