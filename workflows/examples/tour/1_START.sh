#!/usr/bin/env bash
# A tour of the workflow language using script states only (no Claude account needed).
# <print> shows a line to the user; it is not a transition.
echo "<print>Tour: call a countdown subroutine that loops with <reset></print>"
# <call> pushes a return frame: COUNTDOWN runs, and its <result> comes back to AFTER_CALL.
echo '<call return="AFTER_CALL.sh" input="3">COUNTDOWN</call>'
