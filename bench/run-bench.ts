import { availableParallelism, cpus, totalmem } from 'node:os';
import { benchFanout } from './fanout.js';
import {
  cpuFlatness,
  fanoutLines,
  fanoutTable,
  rssText,
  type FanoutOutcome,
} from './fanout-report.js';
import { FANOUT_SHAPES, HUGE_SHAPE } from './fanout-shapes.js';
import { benchIdleMemory } from './idle-memory.js';
import { benchLanguage } from './language.js';
import { benchMarkdown } from './markdown.js';
import { IDLE_TARGET_MB, verdict, WARM_RATIO_TARGET } from './targets.js';
import { worktreeHeader, worktreeLines, worktreeTable } from './worktree-report.js';
import {
  benchWorktreeFigure,
  prepareWorktreeBench,
  WORKTREE_FIGURES,
  type WorktreeOutcome,
} from './worktrees.js';

/**
 * `npm run bench`: prints figures against the targets (targets.ts) and
 * asserts nothing. A failed fanout shape or idle run is reported with the
 * end of its stderr, and the others still run.
 */
const parallel = Math.max(2, availableParallelism());
// `fanout:ad` runs shapes (a) and (d) only.
const only = process.argv.slice(2).map((a) => a.split(':')[0]!);
const shapes = process.argv
  .slice(2)
  .find((a) => a.startsWith('fanout:'))
  ?.slice('fanout:'.length);
// `worktrees:reuse,sparse` runs those figures only.
const figures = process.argv
  .slice(2)
  .find((a) => a.startsWith('worktrees:'))
  ?.slice('worktrees:'.length)
  .split(',');
const want = (name: string) => only.length === 0 || only.includes(name);
const ms = (x: number) => `${x.toFixed(0)} ms`;
const failure = (err: unknown) => (err instanceof Error ? err.message : String(err));
const summary: string[] = [];
console.log(
  `machine: ${cpus()[0]?.model ?? 'unknown cpu'}, ${availableParallelism()} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}`,
);

if (want('fanout')) {
  const outcomes: FanoutOutcome[] = [];
  // The 100,000-worker shape (e) runs only when named: `fanout:abe`.
  const named = [...FANOUT_SHAPES, HUGE_SHAPE].filter((s) => shapes?.includes(s.id));
  for (const shape of shapes ? named : FANOUT_SHAPES) {
    const outcome = await benchFanout(shape, parallel).then(
      (figures): FanoutOutcome => ({ shape, figures }),
      (err: unknown): FanoutOutcome => ({ shape, error: failure(err) }),
    );
    outcomes.push(outcome);
    console.log(fanoutLines(outcome, parallel).join('\n'));
  }
  summary.push(...fanoutTable(outcomes));
  const flat = cpuFlatness(outcomes);
  if (flat) summary.push('', flat);
}
if (want('orchestrator')) {
  // The orchestrator alone, scripts answered in its own process: Raymond's own work per step, flat or not.
  const { benchOrchestratorAlone } = await import('./orchestrator.js');
  const lines = await benchOrchestratorAlone([1000, 10000, 100000]);
  console.log(lines.join('\n'));
  summary.push('', ...lines);
}
if (want('idle')) {
  try {
    const m = await benchIdleMemory(10000);
    const line = `idle: ${m.agents.toLocaleString('en')} live idle agents: orchestrator peak RSS ${m.memory.aloneMb.toFixed(0)} MB, target ${IDLE_TARGET_MB} MB ${verdict(m.memory.aloneMb <= IDLE_TARGET_MB)}; with spawners ${rssText(m.memory)}`;
    console.log(line);
    summary.push('', line);
  } catch (err) {
    console.log(`idle: FAILED: ${failure(err)}`);
    summary.push('', 'idle: failed');
  }
}
if (want('markdown')) {
  for (const extra of [[], ['--no-warm']]) {
    const m = await benchMarkdown(50, parallel, extra);
    console.log(
      `markdown${extra.length ? ' --no-warm' : ''}: ${m.workers} workers through the real claude and the scripted API: wall ${ms(m.wallMs)} (${m.perStepMs.toFixed(0)} ms/step), orchestrator peak RSS ${m.peakRssMb.toFixed(0)} MB, at most ${m.peakClaudes} claude processes alive`,
    );
  }
}
if (want('limits')) {
  // `limits:N:R`: N one-turn workers against R requests a second (the shape: 1,000 at 5).
  const [n = 1000, perSecond = 5] = (
    process.argv.slice(2).find((a) => a.startsWith('limits:')) ?? ''
  )
    .split(':')
    .slice(1)
    .map(Number);
  const { benchLimits, limitLine } = await import('./api-limits.js');
  const at = Math.round(n * 0.3);
  for (const [name, shape] of [
    ['limits', { n, perSecond }],
    ['limits', { n, perSecond, mute: true }],
    ['limits', { n, perSecond, fixed: true }],
    ['limits usage limit', { n, perSecond, spend: { after: at, resetMs: 60_000 } }],
    ['limits 529 burst', { n, perSecond, burst: { after: at, forMs: 30_000 } }],
  ] as const) {
    const line = await benchLimits(shape).then(
      (f) => limitLine(name, shape, f),
      (err: unknown) => `${name}: FAILED: ${failure(err)}`,
    );
    console.log(line);
    summary.push(line);
  }
}
if (want('budget')) {
  // `budget:N`: N one-turn workers at --max-parallel 50 (the 100 by default).
  const [n = 100] = (process.argv.slice(2).find((a) => a.startsWith('budget:')) ?? '')
    .split(':')
    .slice(1)
    .map(Number);
  const { BudgetBench, budgetLine } = await import('./budget-line.js');
  const bench = new BudgetBench();
  try {
    await bench.open();
    for (const [name, wf, shape] of [
      ['budget, no history', 'wide', { n, parallel: 50, turns: 10 }],
      ['budget, with history', 'wide', { n, parallel: 50, turns: 10 }],
      ['no budget', 'free', { n, parallel: 50, turns: 0 }],
      ['budget not reached', 'roomy', { n, parallel: 50, turns: 10 * n }],
      // Turns of several messages: the soft line lets a started turn end; the hard one stops it at the budget.
      ['long turns', 'long', { n, parallel: 50, turns: 10, messages: 4 }],
      [
        'long turns, --budget-hard',
        'long-hard',
        { n, parallel: 50, turns: 10, messages: 4, hard: true },
      ],
    ] as const) {
      const line = await bench.run(wf, shape).then(
        (f) => budgetLine(name, shape, f),
        (err: unknown) => `${name}: FAILED: ${failure(err)}`,
      );
      console.log(line);
      summary.push(line);
    }
  } finally {
    await bench.close();
  }
}
if (want('warm')) {
  const { benchWarm } = await import('./warm.js');
  const w = await benchWarm(8, 10, 4);
  const s = (t: { wallMs: number; cpuMs: number }) =>
    `wall ${(t.wallMs / 1000).toFixed(1)} s, CPU ${(t.cpuMs / 1000).toFixed(1)} s`;
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
  console.log(
    `warm: ${w.agents} agents x ${w.steps}-step <goto> chains through the real claude and the scripted API, --max-parallel ${w.parallel}`,
  );
  console.log(
    `  raymond (warm sessions): ${s(w.warm)}; raymond --no-warm: ${s(w.cold)}; live processes fed by hand: ${s(w.byHand)}`,
  );
  const met =
    w.warm.wallMs / w.byHand.wallMs <= WARM_RATIO_TARGET &&
    w.warm.cpuMs / w.byHand.cpuMs <= WARM_RATIO_TARGET;
  console.log(
    `  ratio to by hand: wall ${ratio(w.warm.wallMs, w.byHand.wallMs)}, CPU ${ratio(w.warm.cpuMs, w.byHand.cpuMs)}: target ${WARM_RATIO_TARGET}x ${verdict(met)} (--no-warm: wall ${ratio(w.cold.wallMs, w.byHand.wallMs)}, CPU ${ratio(w.cold.cpuMs, w.byHand.cpuMs)})`,
  );
}
if (want('language')) {
  const l = await benchLanguage(5000);
  console.log(
    `language: parse + render per step: pool ${l.poolUs.toFixed(0)} us, inline ${l.inlineUs.toFixed(0)} us (wall, 8 concurrent)`,
  );
}
if (want('spawner')) {
  const { benchSpawner } = await import('./spawner.js');
  const s = await benchSpawner(2000, parallel);
  console.log(
    `spawner: ${s.steps} steps from a ${s.benchRssMb.toFixed(0)} MB process, ${s.parallel} lanes: plain spawn ${s.plainMsPerStep.toFixed(2)} ms/step, spawner pool ${s.poolMsPerStep.toFixed(2)}, execa ${s.execaMsPerStep.toFixed(2)}; spawner RSS ${s.spawnerRssMb.map((m) => m.toFixed(0)).join(' + ')} MB`,
  );
}
// The queue's figures: the 40 markdown workers (and, as the control, 40
// sleeping scripts) over 1, 2 and 4 worker processes; a script chain's per-step overhead.
if (want('queue')) {
  const { findRedisServer } = await import('../test/helpers/redis.js');
  if (!findRedisServer())
    console.log('queue: skipped: redis-server is not installed (apt-get install -y redis-server)');
  else {
    const { benchQueueChain, benchQueueFanout } = await import('./queue.js');
    const { queueChainLine, queueFanoutLines } = await import('./queue-report.js');
    // A worker stands for a machine. Markdown: one Claude Code turn at a time per worker, so that this
    // 2-core machine's CPU (a turn's start-up costs about a CPU-second) is not what every count shares;
    // with 10 at a time per worker every count is bound by the same two cores. The control: 10 scripts at a time.
    for (const [kind, concurrency, mdRounds] of [
      ['markdown', 1, 1],
      ['markdown', 10, 1],
      ['script', 10, 3],
    ] as const) {
      await benchQueueFanout(kind, 40, [1, 2, 4], concurrency, 2000, mdRounds).then(
        (f) => console.log(queueFanoutLines(f).join('\n')),
        (err: unknown) =>
          console.log(`queue (${kind}, --concurrency ${concurrency}): FAILED: ${failure(err)}`),
      );
    }
    await benchQueueChain(200).then(
      (c) => console.log(queueChainLine(c)),
      (err: unknown) => console.log(`queue (chain): FAILED: ${failure(err)}`),
    );
  }
}
// `npm run bench -- join`: the targets of <join> (issue 29), against the same fan-out without a join.
if (want('join')) {
  const { benchJoinInput, benchJoinMemory, benchJoinWall } = await import('./join.js');
  const { JOIN_INPUT_TARGET_MS, JOIN_MEMORY_TARGET_MB, JOIN_WALL_RATIO_TARGET } =
    await import('./targets.js');
  try {
    const w = await benchJoinWall(1000, parallel, 3);
    const ratio = w.joined / w.plain;
    const line = `join: 1,000 script workers joined by one parent: wall ${ms(w.joined)} against ${ms(w.plain)} without the join (medians of 3): ${ratio.toFixed(2)}x, target ${JOIN_WALL_RATIO_TARGET}x ${verdict(ratio <= JOIN_WALL_RATIO_TARGET)}`;
    console.log(line);
    summary.push('', line);
    const m = await benchJoinMemory(10000, parallel);
    const added = m.joined - m.plain;
    const mline = `join: a parent waiting on 10,000 workers: orchestrator peak RSS ${m.joined.toFixed(0)} MB against ${m.plain.toFixed(0)} MB without the join: +${added.toFixed(1)} MB, target ${JOIN_MEMORY_TARGET_MB} MB ${verdict(added <= JOIN_MEMORY_TARGET_MB)}`;
    console.log(mline);
    summary.push(mline);
    const input = benchJoinInput(10000);
    const iline = `join: the join state's input for 10,000 workers built in ${input.toFixed(1)} ms, target ${JOIN_INPUT_TARGET_MS} ms ${verdict(input <= JOIN_INPUT_TARGET_MS)}`;
    console.log(iline);
    summary.push(iline);
  } catch (err) {
    console.log(`join: FAILED: ${failure(err)}`);
  }
}
// `npm run bench -- telemetry` (or `telemetry:200` for fewer workers): the fan-out with OpenTelemetry traces off and on (issue 34).
if (want('telemetry')) {
  const { benchTelemetry } = await import('./telemetry.js');
  const arg = process.argv.slice(2).find((a) => a.startsWith('telemetry:'));
  const workers = Number(arg?.slice('telemetry:'.length) ?? 1000);
  try {
    const t = await benchTelemetry(workers, parallel, 3);
    const line = `telemetry: ${t.workers.toLocaleString('en')} script workers forked by one parent: wall ${ms(t.offMs)} with tracing off, ${ms(t.onMs)} with it on (medians of 3): ${(t.onMs / t.offMs).toFixed(2)}x; ${t.spansPerRun.toLocaleString('en')} spans per traced run`;
    console.log(line);
    summary.push('', line);
  } catch (err) {
    console.log(`telemetry: FAILED: ${failure(err)}`);
  }
}
// `npm run bench -- history` (or `history:200` for fewer workers): the run history's targets (issue 34).
if (want('history')) {
  const { benchHistory } = await import('./history.js');
  const { HISTORY_RATIO_TARGET, HISTORY_READ_TARGET_MS } = await import('./targets.js');
  const arg = process.argv.slice(2).find((a) => a.startsWith('history:'));
  const workers = Number(arg?.slice('history:'.length) ?? 1000);
  try {
    const h = await benchHistory(workers, parallel, 3, 100_000);
    const ratio = h.onMs / h.offMs;
    const lines = [
      `history: ${h.workers.toLocaleString('en')} script workers forked by one parent: wall ${ms(h.offMs)} with --no-history, ${ms(h.onMs)} with the history (medians of 3; spread of the runs without it ${(h.offSpread * 100).toFixed(1)}%): ${ratio.toFixed(3)}x, target ${HISTORY_RATIO_TARGET}x ${verdict(ratio <= HISTORY_RATIO_TARGET)}`,
      `history: ${h.runs.toLocaleString('en')} runs, ${h.steps.toLocaleString('en')} steps generated (${h.megabytes.toFixed(0)} MB of logs):`,
      ...h.reads.map(
        (r) =>
          `  ${r.command}: first ${ms(r.firstMs)} (folds every line, writes the index), then ${ms(r.nextMs)}: target ${ms(HISTORY_READ_TARGET_MS)} ${verdict(r.nextMs <= HISTORY_READ_TARGET_MS)}`,
      ),
    ];
    console.log(lines.join('\n'));
    summary.push('', ...lines);
  } catch (err) {
    console.log(`history: FAILED: ${failure(err)}`);
  }
}
// `npm run bench -- schemas`: parse and check the edges' data (issue 32) with TypeBox, Valibot and today's hand-written checks.
if (want('schemas')) {
  const { benchSchemas, schemaLines } = await import('./schemas.js');
  const lines = schemaLines(benchSchemas());
  console.log(lines.join('\n'));
  summary.push('', ...lines);
}
// Opt-in only (`npm run bench -- worktrees`), never in the default run: it
// generates a 20,000-file repository and checks out gigabytes, for minutes.
if (only.includes('worktrees')) {
  const bench = prepareWorktreeBench();
  try {
    console.log(worktreeHeader(bench).join('\n'));
    const outcomes: WorktreeOutcome[] = [];
    for (const spec of WORKTREE_FIGURES.filter((f) => !figures || figures.includes(f.id))) {
      outcomes.push(await benchWorktreeFigure(bench, spec));
      console.log(worktreeLines(outcomes.at(-1)!, bench).join('\n'));
    }
    summary.push('', ...worktreeHeader(bench), '', ...worktreeTable(outcomes, bench));
  } finally {
    bench.dispose();
  }
}
if (summary.length > 0) console.log(['', 'summary:', ...summary].join('\n'));
