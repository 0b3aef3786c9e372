#!/usr/bin/env bash
# Several <fork> tags spawn one worker each; the parent continues at the <goto>,
# which carries this state's input along. Extra attributes (fruit) stay with each worker.
for fruit in apple banana cherry; do
  echo "<fork next=\"DONE.sh\" fruit=\"$fruit\">WORKER.sh</fork>"
done
echo "<goto input=\"$RAYMOND_INPUT\">DONE.sh</goto>"
