#!/usr/bin/env bash
# A <result> with an empty return stack ends the agent; its payload is the run's result.
echo "<result>Hello, $RAYMOND_INPUT!</result>"
