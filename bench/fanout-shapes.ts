import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { PlainJob } from './plain-loop.js';
import { writeScripts } from './write-scripts.js';

/** One workflow shape of the fanout bench. */
export interface FanoutShape {
  /** Its letter in the targets: a, b, c, d. */
  id: string;
  title: string;
  workers: number;
  /**
   * Writes the workflow into `dir` afresh (so a counter starts again) and
   * returns the plain loop's jobs: every script run Raymond makes for this
   * shape, dispatcher steps included.
   */
  write(dir: string): PlainJob[];
}

const sh = (body: string) => `#!/usr/bin/env bash\n${body}\n`;
const WORKER_RESULT = sh('echo "<result>$i</result>"');

/** A dispatcher forking `n` workers in one output, each running W1..Wk (goto), then END. */
function forkAll(id: string, n: number, k: number): FanoutShape {
  return {
    id,
    title: `${n.toLocaleString('en')} workers x ${k} step${k > 1 ? 's' : ''}, forked in one output`,
    workers: n,
    write(dir) {
      const files: Record<string, string> = {
        'START.sh': sh(
          `for i in $(seq 1 ${n}); do printf '<fork next="END" i="%s">W1</fork>' "$i"; done`,
        ),
        'END.sh': sh('echo "<result>dispatched</result>"'),
      };
      for (let s = 1; s <= k; s++)
        files[`W${s}.sh`] = s < k ? sh(`echo "<goto>W${s + 1}</goto>"`) : WORKER_RESULT;
      writeScripts(dir, files);
      const workerJobs = Array.from({ length: k }, (_, s) => ({
        script: join(dir, `W${s + 1}.sh`),
        runs: n,
        worker: true,
      }));
      return [
        { script: join(dir, 'START.sh'), runs: 1, worker: false },
        ...workerJobs,
        { script: join(dir, 'END.sh'), runs: 1, worker: false },
      ];
    },
  };
}

/**
 * One fork per dispatcher step: START forks one worker and continues at
 * START, `n` times, then ends with a result. A counter file (bash builtins
 * only, so the step forks nothing more) says when to stop.
 */
function forkPerStep(id: string, n: number): FanoutShape {
  return {
    id,
    title: `${n.toLocaleString('en')} workers x 1 step, one fork per dispatcher step`,
    workers: n,
    write(dir) {
      const counter = join(dir, 'counter');
      rmSync(counter, { force: true });
      writeScripts(dir, {
        'START.sh': sh(
          [
            `n=0; [[ -f '${counter}' ]] && read -r n < '${counter}'; n=$((n + 1)); echo "$n" > '${counter}'`,
            `if (( n <= ${n} )); then printf '<fork next="START" i="%s">W1</fork>' "$n"; else echo "<result>forked $((n - 1))</result>"; fi`,
          ].join('\n'),
        ),
        'W1.sh': WORKER_RESULT,
      });
      return [
        { script: join(dir, 'START.sh'), runs: n + 1, worker: false },
        { script: join(dir, 'W1.sh'), runs: n, worker: true },
      ];
    },
  };
}

/** The four shapes the issue states its wall-time targets for. */
export const FANOUT_SHAPES: FanoutShape[] = [
  forkAll('a', 1000, 1),
  forkAll('b', 10000, 1),
  forkAll('c', 1000, 6),
  forkPerStep('d', 1000),
];

/**
 * 100,000 one-step workers from one dispatcher: memory, state size and CPU
 * per step at scale. Run only when named (`fanout:e`): here it takes the
 * better part of an hour, the plain loop and the floor included.
 */
export const HUGE_SHAPE: FanoutShape = forkAll('e', 100000, 1);
