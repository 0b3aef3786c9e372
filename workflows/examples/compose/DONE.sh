#!/usr/bin/env bash
echo "<result>composition done; the call counted $RAYMOND_INPUT</result>"
