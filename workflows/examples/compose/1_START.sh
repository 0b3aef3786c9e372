#!/usr/bin/env bash
# Calls another workflow as a subroutine: count-words runs in this agent, and
# its <result> comes back here as the input of REPORT.sh.
echo "<call-workflow return=\"REPORT.sh\" input=\"the quick brown fox\">../count-words/</call-workflow>"
