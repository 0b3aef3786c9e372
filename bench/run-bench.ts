import { availableParallelism, cpus, totalmem } from 'node:os';
import { benchFanout } from './fanout.js';
import { benchIdleMemory } from './idle-memory.js';
import { benchLanguage } from './language.js';
import { benchMarkdown } from './markdown.js';

/**
 * `npm run bench`: prints figures and asserts nothing. The targets and the
 * last recorded figures are in the README.
 */
const parallel = Math.max(2, availableParallelism());
const only = process.argv.slice(2);
const want = (name: string) => only.length === 0 || only.includes(name);
const ms = (x: number) => `${x.toFixed(0)} ms`;
console.log(`machine: ${cpus()[0]?.model ?? 'unknown cpu'}, ${availableParallelism()} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}`);

if (want('fanout')) {
  for (const [workers, steps] of [[1000, 1], [10000, 1], [1000, 5]] as const) {
    const f = await benchFanout(workers, parallel, steps);
    console.log(`fan-out: ${f.workers} script workers x ${f.stepsPerWorker} step(s), parallel ${f.parallel} (${f.steps} steps)`);
    console.log(`  wall ${ms(f.wallMs)} vs plain loop ${ms(f.baselineMs)}: overhead ${f.overheadPerStepMs.toFixed(3)} ms/step`);
    console.log(`  orchestrator peak RSS ${f.peakRssMb.toFixed(0)} MB; state written ${f.stateBytesPerStep.toFixed(0)} bytes/step`);
  }
}
if (want('idle')) {
  const m = await benchIdleMemory(10000);
  console.log(`idle: ${m.agents} live idle agents: orchestrator peak RSS ${m.peakRssMb.toFixed(0)} MB`);
}
if (want('markdown')) {
  const m = await benchMarkdown(50, parallel);
  console.log(`markdown: ${m.workers} workers through the real claude and the scripted API: wall ${ms(m.wallMs)} (${m.perStepMs.toFixed(0)} ms/step), orchestrator peak RSS ${m.peakRssMb.toFixed(0)} MB`);
}
if (want('language')) {
  const l = await benchLanguage(5000);
  console.log(`language: parse + render per step: pool ${l.poolUs.toFixed(0)} us, inline ${l.inlineUs.toFixed(0)} us (wall, 8 concurrent)`);
}
