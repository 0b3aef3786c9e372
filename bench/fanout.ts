import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorkflow } from '../src/runtime/run-workflow.js';
import { silentReporter } from '../src/runtime/reporter.js';

export interface FanoutFigures {
  workers: number;
  parallel: number;
  steps: number;
  wallMs: number;
  baselineMs: number;
  overheadPerStepMs: number;
  orchestratorCpuPerStepMs: number;
  peakRssMb: number;
  stateWrites: number;
  stateBytes: number;
}

/** A dispatcher that forks `n` workers in one output; each worker runs one script step. */
function writeWorkflow(dir: string, n: number): void {
  writeFileSync(join(dir, 'START.sh'), `#!/usr/bin/env bash\nfor i in $(seq 1 ${n}); do printf '<fork next="END" i="%s">W</fork>' "$i"; done\n`);
  writeFileSync(join(dir, 'W.sh'), '#!/usr/bin/env bash\necho "<result>$i</result>"\n');
  writeFileSync(join(dir, 'END.sh'), '#!/usr/bin/env bash\necho "<result>dispatched</result>"\n');
  for (const f of ['START.sh', 'W.sh', 'END.sh']) chmodSync(join(dir, f), 0o755);
}

/** Runs the same worker script `n` times with `parallel` at once, no orchestrator. */
async function plainLoop(script: string, n: number, parallel: number): Promise<number> {
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

/** Measures a fan-out run against the plain loop, in the same process and run. */
export async function benchFanout(workers: number, parallel: number, language: 'pool' | 'inline' = 'pool'): Promise<FanoutFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'raymond-bench-'));
  try {
    writeWorkflow(dir, workers);
    const baselineMs = await plainLoop(join(dir, 'W.sh'), workers + 1, parallel);
    const stats = { writes: 0, bytes: 0, snapshots: 0 };
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const outcome = await startWorkflow({
      path: dir,
      stateDir: join(dir, 'state'),
      settings: { maxParallel: parallel, timeoutSeconds: 600, budgetUsd: 0, skipPermissions: false, debug: false },
      reporter: silentReporter,
      cwd: dir,
      language,
      stats,
    });
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    if (outcome.status !== 'completed' || Object.keys(outcome.results).length !== workers + 1) {
      throw new Error(`bench run ended ${outcome.status}: ${outcome.error ?? ''}`);
    }
    const steps = workers + 1;
    return {
      workers,
      parallel,
      steps,
      wallMs,
      baselineMs,
      overheadPerStepMs: (wallMs - baselineMs) / steps,
      orchestratorCpuPerStepMs: (cpu.user + cpu.system) / 1000 / steps,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
      stateWrites: stats.writes,
      stateBytes: stats.bytes,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
