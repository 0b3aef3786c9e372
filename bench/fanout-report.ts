import type { FanoutShape } from './fanout-shapes.js';
import type { FanoutFigures } from './fanout.js';
import type { MemoryPeaks } from './memory-sampler.js';
import {
  CPU_FLAT_TARGET,
  CPU_PER_STEP_TARGET_MS,
  memoryTargetMb,
  verdict,
  WALL_RATIO_TARGET,
} from './targets.js';

/** A shape's figures, or why it has none. */
export type FanoutOutcome =
  { shape: FanoutShape; figures: FanoutFigures } | { shape: FanoutShape; error: string };

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const mb = (x: number) => `${x.toFixed(0)} MB`;
const perStep = (ms: number, steps: number) => `${(ms / steps).toFixed(2)} ms/step`;

/** "90 MB (orchestrator alone 90 MB, 0 spawners)" */
export function rssText(m: MemoryPeaks): string {
  return `${mb(m.withSpawnersMb)} PSS (RSS summed ${mb(m.withSpawnersRssMb)}; orchestrator alone ${mb(m.aloneMb)} RSS, ${m.spawners} spawner${m.spawners === 1 ? '' : 's'})`;
}

/** The lines printed for one shape as soon as it is measured. */
export function fanoutLines(o: FanoutOutcome, parallel: number): string[] {
  const head = `fanout (${o.shape.id}) ${o.shape.title}, --max-parallel ${parallel}`;
  if ('error' in o) return [head, `  FAILED: ${o.error}`];
  const f = o.figures;
  const memTarget = memoryTargetMb(o.shape.workers);
  return [
    `${head}: ${f.steps.toLocaleString('en')} script runs`,
    `  wall: raymond ${s(f.raymond.wallMs)} (${perStep(f.raymond.wallMs, f.steps)}), plain loop ${s(f.plain.wallMs)} (${perStep(f.plain.wallMs, f.steps)}; its loop alone ${s(f.plain.loopMs)})`,
    `  ratio ${f.ratio.toFixed(2)}x: target ${WALL_RATIO_TARGET}x ${verdict(f.ratio <= WALL_RATIO_TARGET)}`,
    `  floor (the same runs through Raymond's spawners from a bare loop that journals each): ${s(f.floor.wallMs)}, ${(f.floor.wallMs / f.plain.wallMs).toFixed(2)}x the plain loop`,
    `  peak memory orchestrator + spawners ${rssText(f.raymond.memory)}: target ${memTarget} MB ${verdict(f.raymond.memory.withSpawnersMb <= memTarget)}; plain-loop process ${mb(f.plain.peakRssMb)}`,
    `  orchestrator CPU ${perStep(f.raymond.cpuMs, f.steps)} (${s(f.raymond.cpuMs)}): target ${CPU_PER_STEP_TARGET_MS} ms ${verdict(f.raymond.cpuMs / f.steps <= CPU_PER_STEP_TARGET_MS)}; the floor's loop ${perStep(f.floor.cpuMs, f.steps)}, the plain loop's ${perStep(f.plain.cpuMs, f.steps)} (its spawns included)`,
    `  state written ${Number.isFinite(f.stateBytesPerStep) ? f.stateBytesPerStep.toFixed(0) : 'n/a'} bytes/step; the finished state file ${(f.stateFileBytes / 1e6).toFixed(1)} MB (${(f.stateFileBytes / (o.shape.workers + 1)).toFixed(0)} bytes per agent); ${f.taskFolders} entries under .raymond/tasks`,
  ];
}

/** CPU per step at the largest fan-out measured against the smallest: flat is at most CPU_FLAT_TARGET. */
export function cpuFlatness(outcomes: FanoutOutcome[]): string | undefined {
  const oneStep = outcomes.filter(
    (o): o is { shape: FanoutShape; figures: FanoutFigures } =>
      'figures' in o && o.shape.title.includes('x 1 step, forked'),
  );
  if (oneStep.length < 2) return undefined;
  const by = [...oneStep].sort((x, y) => x.shape.workers - y.shape.workers);
  const per = (o: (typeof by)[number]) => o.figures.raymond.cpuMs / o.figures.steps;
  const small = by[0]!;
  const big = by.at(-1)!;
  const ratio = per(big) / per(small);
  return `orchestrator CPU per step, flat: ${by.map((o) => `${o.shape.workers.toLocaleString('en')} workers ${per(o).toFixed(3)} ms`).join(', ')}; ${big.shape.workers.toLocaleString('en')} against ${small.shape.workers.toLocaleString('en')}: ${ratio.toFixed(2)}x, target ${CPU_FLAT_TARGET}x ${verdict(ratio <= CPU_FLAT_TARGET)}`;
}

/** The summary at the end: one row per shape, as a Markdown table. */
export function fanoutTable(outcomes: FanoutOutcome[]): string[] {
  const rows = outcomes.map((o) => {
    const name = `(${o.shape.id}) ${o.shape.title}`;
    if ('error' in o) return `| ${name} | failed | | | | | | |`;
    const f = o.figures;
    const memTarget = memoryTargetMb(o.shape.workers);
    const m = f.raymond.memory;
    const cells = [
      name,
      f.steps.toLocaleString('en'),
      `${s(f.raymond.wallMs)} / ${s(f.plain.wallMs)}`,
      `${(f.raymond.wallMs / f.steps).toFixed(2)} / ${(f.plain.wallMs / f.steps).toFixed(2)}`,
      `**${f.ratio.toFixed(2)}x** ${verdict(f.ratio <= WALL_RATIO_TARGET)}`,
      `${(f.floor.wallMs / f.plain.wallMs).toFixed(2)}x`,
      `**${mb(m.withSpawnersMb)}** (${mb(m.aloneMb)}) of ${memTarget} MB ${verdict(m.withSpawnersMb <= memTarget)}`,
      Number.isFinite(f.stateBytesPerStep) ? f.stateBytesPerStep.toFixed(0) : 'n/a',
    ];
    return `| ${cells.join(' | ')} |`;
  });
  return [
    `| Shape | Steps | Wall raymond / plain | ms/step raymond / plain | Ratio (target ${WALL_RATIO_TARGET}x) | Floor / plain | Peak RSS orch.+spawners (orch.) | State B/step |`,
    '|---|---|---|---|---|---|---|---|',
    ...rows,
  ];
}
