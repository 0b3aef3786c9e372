import { verdict, WORKTREE_SLACK } from './targets.js';
import { WORKTREE_PARALLEL, type WorktreeBench, type WorktreeOutcome } from './worktrees.js';

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const size = (kb: number) =>
  kb >= 1024 * 1024 ? `${(kb / 1024 / 1024).toFixed(2)} GB` : `${(kb / 1024).toFixed(0)} MB`;
const ALIVE_TARGET = WORKTREE_PARALLEL + WORKTREE_SLACK;
const BASELINE = { reuse: 'one reused worktree by hand', sparse: 'plain sparse loop' };

/** The disk target: (`--max-parallel` + slack) checkouts. */
const diskTargetKb = (bench: WorktreeBench) => ALIVE_TARGET * bench.repo.checkoutKb;

/** The line printed once the repository is generated: what every figure runs against. */
export function worktreeHeader(bench: WorktreeBench): string[] {
  const r = bench.repo;
  return [
    `worktrees: generated repository of ${r.files.toLocaleString('en')} files, ${size(r.checkoutKb)} checkout (du without .git), one commit, in ${s(bench.generateMs)}; --max-parallel ${WORKTREE_PARALLEL}`,
    bench.mode
      ? `  --worktrees ${bench.mode}`
      : '  (this build has no --worktrees: measuring per-agent worktrees)',
  ];
}

/** The lines printed for one figure as soon as it is measured. */
export function worktreeLines(o: WorktreeOutcome, bench: WorktreeBench): string[] {
  const head = `worktrees (${o.spec.id}) ${o.spec.title}`;
  if ('error' in o) return [head, `  FAILED: ${o.error}`];
  const { raymond, plain } = o.figures;
  const b = o.spec.baseline;
  const lines = [`${head}, each worker one commit`];
  if (plain && b) {
    const ratio = raymond.wallMs / plain.wallMs;
    lines.push(
      `  wall: raymond ${s(raymond.wallMs)}, ${BASELINE[b.mode]} ${s(plain.wallMs)} (its loop alone ${s(plain.loopMs)})`,
      `  ratio ${ratio.toFixed(2)}x: target ${b.ratioTarget}x ${raymond.stoppedAtKb ? 'NOT met (stopped)' : verdict(ratio <= b.ratioTarget)}`,
    );
  } else {
    lines.push(
      `  wall: raymond ${s(raymond.wallMs)} (for information${raymond.stoppedAtKb ? ', until the bench stopped it' : ''})`,
    );
  }
  if (raymond.stoppedAtKb)
    lines.push(
      `  STOPPED when its worktrees passed ${size(raymond.stoppedAtKb)}, the bench's cap: the peaks below are lower bounds`,
    );
  const checkouts = (raymond.peaks.diskKb / bench.repo.checkoutKb).toFixed(1);
  lines.push(
    `  peak worktrees alive ${raymond.peaks.alive}: target ${ALIVE_TARGET} ${verdict(raymond.peaks.alive <= ALIVE_TARGET)}`,
    `  peak disk under .raymond/worktrees ${size(raymond.peaks.diskKb)} (${checkouts} checkouts, ${raymond.peaks.diskSamples} du samples): target ${size(diskTargetKb(bench))} (${ALIVE_TARGET} x ${size(bench.repo.checkoutKb)}) ${verdict(raymond.peaks.diskKb <= diskTargetKb(bench))}${plain ? `; plain loop's worktrees ${size(plain.diskKb)}` : ''}`,
    `  commits: raymond ${raymond.check}${plain ? `; plain ${plain.check}` : ''}`,
  );
  return lines;
}

/** The summary at the end: one row per figure, as a Markdown table. */
export function worktreeTable(outcomes: WorktreeOutcome[], bench: WorktreeBench): string[] {
  const rows = outcomes.map((o) => {
    const name = `(${o.spec.id}) ${o.spec.title}`;
    if ('error' in o) return `| ${name} | failed | | | | |`;
    const { raymond, plain } = o.figures;
    const b = o.spec.baseline;
    const ratio = plain && b ? raymond.wallMs / plain.wallMs : undefined;
    const failed = raymond.check.startsWith('FAILED') || plain?.check.startsWith('FAILED');
    const cells = [
      `${name}${raymond.stoppedAtKb ? ' (stopped at the disk cap)' : ''}`,
      plain ? `${s(raymond.wallMs)} / ${s(plain.wallMs)}` : `${s(raymond.wallMs)} / -`,
      ratio !== undefined && b
        ? `**${ratio.toFixed(2)}x** of ${b.ratioTarget}x ${raymond.stoppedAtKb ? 'NOT met' : verdict(ratio <= b.ratioTarget)}`
        : '-',
      `**${raymond.peaks.alive}** of ${ALIVE_TARGET} ${verdict(raymond.peaks.alive <= ALIVE_TARGET)}`,
      `**${size(raymond.peaks.diskKb)}** of ${size(diskTargetKb(bench))} ${verdict(raymond.peaks.diskKb <= diskTargetKb(bench))}`,
      failed ? 'FAILED' : raymond.stoppedAtKb ? 'not checked' : 'ok',
    ];
    return `| ${cells.join(' | ')} |`;
  });
  return [
    `| Figure (--max-parallel ${WORKTREE_PARALLEL}) | Wall raymond / plain | Ratio (target) | Peak worktrees alive | Peak disk .raymond/worktrees | Commits |`,
    '|---|---|---|---|---|---|',
    ...rows,
  ];
}
