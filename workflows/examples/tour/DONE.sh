#!/usr/bin/env bash
echo "<result>Tour complete: $RAYMOND_INPUT, and three workers forked</result>"
