import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './measure-cli.js';
import { writeScripts } from './write-scripts.js';

export interface FanoutFigures {
  workers: number;
  stepsPerWorker: number;
  parallel: number;
  steps: number;
  wallMs: number;
  baselineMs: number;
  overheadPerStepMs: number;
  peakRssMb: number;
  stateBytesPerStep: number;
}

/** A dispatcher forking `n` workers in one output; each worker runs `k` script steps. */
function writeWorkflow(dir: string, n: number, k: number): void {
  const files: Record<string, string> = {
    'START.sh': `#!/usr/bin/env bash\nfor i in $(seq 1 ${n}); do printf '<fork next="END" i="%s">W1</fork>' "$i"; done\n`,
    'END.sh': '#!/usr/bin/env bash\necho "<result>dispatched</result>"\n',
  };
  for (let s = 1; s <= k; s++) files[`W${s}.sh`] = s < k ? `#!/usr/bin/env bash\necho "<goto>W${s + 1}</goto>"\n` : '#!/usr/bin/env bash\necho "<result>$i</result>"\n';
  writeScripts(dir, files);
}

/** Runs the same worker script `n` times with `parallel` at once, without an orchestrator. */
export async function plainLoop(script: string, n: number, parallel: number): Promise<number> {
  const started = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < n) {
      const i = ++next;
      await new Promise<void>((ok, fail) => {
        const child = spawn('bash', [script], { env: { ...process.env, i: String(i) }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
        child.stdout.resume();
        child.stderr.resume();
        child.on('error', fail);
        child.on('close', () => ok());
      });
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  return performance.now() - started;
}

/**
 * Fan-out through the built CLI against the same scripts in a plain loop,
 * at the same parallelism, in the same run. State bytes are what the CLI
 * reports (--verbose) having written to its state folder.
 */
export async function benchFanout(workers: number, parallel: number, stepsPerWorker = 1): Promise<FanoutFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'raymond-bench-'));
  try {
    writeWorkflow(dir, workers, stepsPerWorker);
    const steps = 2 + workers * stepsPerWorker;
    const baselineMs = await plainLoop(join(dir, 'W1.sh'), steps, parallel);
    const run = await runCli([dir, '--max-parallel', String(parallel), '--no-debug', '--quiet', '--verbose', '--workflow-id', 'bench', '--state-dir', join(dir, 'state')], { cwd: dir });
    if (run.code !== 0) throw new Error(`bench run failed: ${run.stderr}`);
    const bytes = Number(/writes \(\d+ snapshots\), (\d+) bytes/.exec(run.stderr)?.[1] ?? NaN);
    return {
      workers,
      stepsPerWorker,
      parallel,
      steps,
      wallMs: run.wallMs,
      baselineMs,
      overheadPerStepMs: (run.wallMs - baselineMs) / steps,
      peakRssMb: run.peakRssMb,
      stateBytesPerStep: bytes / steps,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
