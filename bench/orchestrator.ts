import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cliNodeFlags } from './measure-cli.js';
import { CPU_FLAT_TARGET, CPU_PER_STEP_TARGET_MS, verdict } from './targets.js';

const ALONE = fileURLToPath(new URL('./orchestrator-alone.ts', import.meta.url));

/** What orchestrator-alone.ts prints for one fan-out. */
interface AloneFigures {
  workers: number;
  status: string;
  results: number;
  steps: number;
  wallMs: number;
  cpuMs: number;
  peakRssMb: number;
  stateBytes: number;
  /** CPU of a run's start (its first 5,010 steps beyond the measured rate), in ms. */
  startCpuMs: number;
}

/**
 * `npm run bench -- orchestrator`: each fan-out in a fresh Node process with
 * the bin's flags (orchestrator-alone.ts), then CPU per step against the
 * target and the smallest fan-out's figure. Returns the lines to print.
 */
export async function benchOrchestratorAlone(sizes: number[]): Promise<string[]> {
  const lines: string[] = [];
  const figures: AloneFigures[] = [];
  for (const n of sizes) {
    const run = spawnSync(
      process.execPath,
      [...cliNodeFlags(), '--import', 'tsx', ALONE, String(n)],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    );
    if (run.status !== 0) {
      lines.push(
        `orchestrator alone, ${n.toLocaleString('en')} workers: FAILED: ${run.stderr.slice(-2000)}`,
      );
      continue;
    }
    const f = JSON.parse(run.stdout) as AloneFigures;
    figures.push(f);
    const per = f.cpuMs / f.steps;
    lines.push(
      `orchestrator alone, ${f.workers.toLocaleString('en')} one-step workers (${f.status}, ${f.results.toLocaleString('en')} results): CPU ${per.toFixed(3)} ms/step (target ${CPU_PER_STEP_TARGET_MS} ms ${verdict(per <= CPU_PER_STEP_TARGET_MS)}), wall ${(f.wallMs / 1000).toFixed(1)} s, peak RSS ${f.peakRssMb.toFixed(0)} MB, ${(f.stateBytes / f.steps).toFixed(0)} state bytes/step; a run's start ${f.startCpuMs.toFixed(0)} ms of CPU once`,
    );
  }
  if (figures.length >= 2) {
    const per = (f: AloneFigures) => f.cpuMs / f.steps;
    const ratio = per(figures.at(-1)!) / per(figures[0]!);
    lines.push(
      `orchestrator alone, flat: ${figures.at(-1)!.workers.toLocaleString('en')} against ${figures[0]!.workers.toLocaleString('en')} workers ${ratio.toFixed(2)}x, target ${CPU_FLAT_TARGET}x ${verdict(ratio <= CPU_FLAT_TARGET)}`,
    );
  }
  return lines;
}
