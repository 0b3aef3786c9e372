#!/usr/bin/env bash
# The callee's payload arrives as RAYMOND_INPUT (and RAYMOND_RESULT).
echo "<print>the countdown returned: $RAYMOND_RESULT</print>"
# <function> is a call whose callee starts with no context.
echo "<function return=\"AFTER_FUNCTION.sh\" input=\"$RAYMOND_RESULT\">SHOUT.sh</function>"
