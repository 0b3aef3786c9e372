import { availableParallelism } from 'node:os';
import type { QueueChainFigures, QueueFanoutFigures } from './queue.js';
import { QUEUE_SPEEDUP_TARGETS, verdict } from './targets.js';

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The fan-out's lines: wall time per worker count, the speed-up against one worker, and what the machine was doing meanwhile. */
export function queueFanoutLines(f: QueueFanoutFigures): string[] {
  const cores = availableParallelism();
  const what =
    f.kind === 'markdown'
      ? `markdown workers through the real claude, the scripted API answering each turn after ${s(f.delayMs)}`
      : `script workers each sleeping ${s(f.delayMs)} (the control: steps that need no CPU)`;
  const lines = [
    `queue (${f.kind}): ${f.agents} ${what}; worker processes of --concurrency ${f.concurrency}, all on this machine (${cores} cores); median of ${f.rounds} runs each`,
  ];
  const one = f.counts.find((c) => c.workers === 1)?.median?.wallMs;
  for (const { workers, median: r, walls, failures } of f.counts) {
    const head = `  ${workers} worker${workers === 1 ? '' : 's'} (${workers * f.concurrency} at once)`;
    const failed =
      failures.length === 0
        ? ''
        : `; ${failures.length} of ${f.rounds} runs FAILED: ${failures[0]}`;
    if (!r) {
      lines.push(`${head}: no figure${failed}`);
      continue;
    }
    const waits = Math.ceil(f.agents / (workers * f.concurrency)) * f.delayMs;
    const speedup = one === undefined ? 0 : one / r.wallMs;
    const target = QUEUE_SPEEDUP_TARGETS[workers];
    const judged =
      workers === 1 || one === undefined
        ? ''
        : `, speed-up ${speedup.toFixed(2)}x (ideal ${workers}x)${f.kind === 'markdown' && target ? `: target ${target}x ${verdict(speedup >= target)}` : ''}`;
    lines.push(
      `${head}: wall ${s(r.wallMs)} (the waits alone ${s(waits)}; runs ${walls.map((w) => (w / 1000).toFixed(1)).join(', ')} s)${judged}${failed}`,
    );
    const claudes =
      f.kind === 'markdown'
        ? `at most ${r.peakClaudes} claude processes alive (${(r.peakClaudeMb / 1024).toFixed(1)} GB RSS), `
        : '';
    // Busy CPU time over the cores is the least wall time the same work could take here.
    lines.push(
      `    ${r.turns} steps ran; ${claudes}least memory available ${(r.minAvailableMb / 1024).toFixed(1)} GB; CPU ${(r.cpuBusy * 100).toFixed(0)}% busy, ${r.cpuSeconds.toFixed(0)} CPU-s (${(r.cpuSeconds / r.turns).toFixed(2)} per step): no less than ${s((r.cpuSeconds * 1000) / cores)} on ${cores} cores`,
    );
  }
  return lines;
}

/** The chain's line: ms per script step locally and through the queue, start-up taken off. */
export function queueChainLine(c: QueueChainFigures): string {
  const per = (t: { wallMs: number; fixedMs: number }) => (t.wallMs - t.fixedMs) / c.steps;
  const [local, queued] = [per(c.local), per(c.queue)];
  return `queue (chain): ${c.steps}-step <goto> chain of a script: local ${local.toFixed(1)} ms/step, through the queue (1 worker) ${queued.toFixed(1)} ms/step: overhead ${(queued - local).toFixed(1)} ms/step, ${(queued / local).toFixed(2)}x (start-up taken off: a one-step run takes ${s(c.local.fixedMs)} locally, ${s(c.queue.fixedMs)} through the queue)`;
}
