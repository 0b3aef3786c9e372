import { availableParallelism, cpus, totalmem } from 'node:os';
import { benchFanout } from './fanout.js';

/**
 * `npm run bench`: prints figures, asserts nothing. Targets are in the README;
 * compare against them by eye or in review.
 */
const parallel = Math.max(2, availableParallelism());
console.log(`machine: ${cpus()[0]?.model ?? 'unknown cpu'}, ${availableParallelism()} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}`);
for (const workers of [1000]) {
  const f = await benchFanout(workers, parallel);
  console.log(`fan-out ${f.workers} script workers at parallel ${f.parallel}:`);
  console.log(`  wall ${f.wallMs.toFixed(0)} ms (plain loop ${f.baselineMs.toFixed(0)} ms)`);
  console.log(`  overhead per step ${f.overheadPerStepMs.toFixed(3)} ms wall, ${f.orchestratorCpuPerStepMs.toFixed(3)} ms orchestrator CPU`);
  console.log(`  peak RSS ${f.peakRssMb.toFixed(0)} MB; state file: ${f.stateWrites} writes, ${(f.stateBytes / 1e6).toFixed(1)} MB`);
}
