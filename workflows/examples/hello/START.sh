#!/usr/bin/env bash
# The smallest workflow: say hello, then move on. {{input}} lives for one state,
# so the input is handed to the next state with the tag's input="..." attribute.
echo "Hello from agent $RAYMOND_AGENT_ID of workflow $RAYMOND_WORKFLOW_ID"
echo "<goto input=\"${RAYMOND_INPUT:-world}\">GOODBYE.sh</goto>"
