import { createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { historyFiles, historyKey, historyRoot } from '../src/history/history-paths.js';
import type { RunRecord, StepRecord } from '../src/history/history-types.js';
import { runCli } from './measure-cli.js';
import { tailOf } from './tail.js';
import { writeScripts } from './write-scripts.js';
import { median, scriptFanOut } from './script-fanout.js';

/** The history's figures: the fan-out with and without it, and the commands that read a big one. */
export interface HistoryFigures {
  workers: number;
  offMs: number;
  onMs: number;
  /** (slowest - fastest) / median of the runs without the history: the noise the ratio sits in. */
  offSpread: number;
  runs: number;
  steps: number;
  megabytes: number;
  /** Wall times of each reading command: its first run (no index yet: every line folded) and the next (from the index). */
  reads: Array<{ command: string; firstMs: number; nextMs: number }>;
}

async function write(
  path: string,
  lines: (emit: (line: string) => Promise<void>) => Promise<void>,
) {
  const out = createWriteStream(path);
  let buffered: string[] = [];
  const emit = async (line: string) => {
    buffered.push(line);
    if (buffered.length >= 5000) {
      if (!out.write(buffered.join(''))) await once(out, 'drain');
      buffered = [];
    }
  };
  await lines(emit);
  out.end(buffered.join(''));
  await once(out, 'finish');
}

/** A history of `runs` runs of a workflow in `project`, as runs would have left it (no index). */
async function generateHistory(project: string, workflow: string, runs: number): Promise<number> {
  const files = historyFiles(historyRoot(project), historyKey({ kind: 'dir', path: workflow }));
  mkdirSync(files.dir, { recursive: true });
  let steps = 0;
  const t0 = Date.UTC(2026, 0, 1);
  // Deterministic figures: a run's cost and time vary with its number.
  const step = (run: string, at: number, agent: string, state: string, i: number): StepRecord => ({
    v: 1,
    run,
    at,
    agent,
    state,
    backend: state.endsWith('.md') ? 'claude' : 'script',
    ...(state.endsWith('.md') ? { model: 'sonnet' } : {}),
    turns: state.endsWith('.md') ? 1 + (i % 3) : 0,
    retries: i % 50 === 0 ? 1 : 0,
    reminders: i % 70 === 0 ? 1 : 0,
    costUsd: state.endsWith('.md') ? 0.01 + (i % 97) / 1000 : 0,
    tokens: state.endsWith('.md') ? 20_000 + (i % 1000) * 10 : 0,
    wallMs: 2000 + (i % 500) * 20,
    cpuMs: 900 + (i % 300),
    outcome: state === 'END.sh' ? 'result' : state === 'PLAN.md' ? 'fork' : 'goto',
    ...(state === 'PLAN.md' ? { width: 3 } : {}),
  });
  await write(files.steps, async (emit) => {
    for (let r = 0; r < runs; r++) {
      const run = `gen-${r}`;
      const at = t0 + r * 60_000;
      const agents: Array<[string, string]> = [
        ['main', 'START.md'],
        ['main', 'PLAN.md'],
        ['main_w1', 'W.md'],
        ['main_w2', 'W.md'],
        ['main_w3', 'W.md'],
        ['main', 'REVIEW.md'],
        ...(r % 3 === 0
          ? ([
              ['main', 'FIX.md'],
              ['main', 'REVIEW.md'],
            ] as Array<[string, string]>)
          : []),
        ['main', 'END.sh'],
      ];
      for (const [i, [agent, state]] of agents.entries()) {
        await emit(`${JSON.stringify(step(run, at + i * 1000, agent, state, r + i))}\n`);
        steps++;
      }
    }
  });
  await write(files.runs, async (emit) => {
    for (let r = 0; r < runs; r++) {
      const record: RunRecord = {
        v: 1,
        run: `gen-${r}`,
        workflow: 'gen',
        path: workflow,
        fingerprint: 'f00d',
        source: 'local',
        startedAt: t0 + r * 60_000,
        endedAt: t0 + r * 60_000 + 9000,
        status: 'completed',
        costUsd: 0.1 + (r % 97) / 200,
        steps: r % 3 === 0 ? 9 : 7,
        agents: 4,
        maxLive: 4,
        workers: { 'W.md': { count: 3, costUsd: 0.06 + (r % 13) / 100 } },
      };
      await emit(`${JSON.stringify(record)}\n`);
    }
  });
  return steps;
}

async function timed(args: string[], cwd: string): Promise<number> {
  const run = await runCli(args, { cwd, timeoutMs: 300_000 });
  if (run.code !== 0)
    throw new Error(
      `raymond ${args.join(' ')} failed (exit ${run.code ?? run.signal}): ${tailOf(run.stderr)}`,
    );
  return run.wallMs;
}

/**
 * The history's targets: the fan-out of `n` script workers with the
 * history on and off (alternating, `rounds` each, medians), and `raymond
 * stats` / `raymond plan` on a generated history of `runs` runs.
 */
export async function benchHistory(
  n: number,
  parallel: number,
  rounds: number,
  runs: number,
): Promise<HistoryFigures> {
  const off: number[] = [];
  const on: number[] = [];
  for (let i = 0; i < rounds; i++) {
    off.push(await scriptFanOut(n, parallel, ['--no-history']));
    on.push(await scriptFanOut(n, parallel, []));
  }
  const project = mkdtempSync(join(tmpdir(), 'raymond-history-big-'));
  try {
    const workflow = join(project, 'gen');
    mkdirSync(workflow);
    writeScripts(workflow, {
      'START.md': 'Plan the work.\n',
      'PLAN.md': 'Fork three workers.\n',
      'W.md': 'Do one part.\n',
      'REVIEW.md': 'Review it.\n',
      'FIX.md': 'Fix it.\n',
      'END.sh': '#!/usr/bin/env bash\necho "<result>done</result>"\n',
    });
    const steps = await generateHistory(project, workflow, runs);
    const dir = historyFiles(historyRoot(project), historyKey({ kind: 'dir', path: workflow }));
    const megabytes = (statSync(dir.steps).size + statSync(dir.runs).size) / 2 ** 20;
    const reads = [];
    for (const command of [
      ['stats', 'gen'],
      ['plan', 'gen'],
    ]) {
      const firstMs = await timed(command, project);
      const nextMs = await timed(command, project);
      reads.push({ command: `raymond ${command.join(' ')}`, firstMs, nextMs });
      // The second command starts from the index the first wrote.
    }
    const offSpread = (Math.max(...off) - Math.min(...off)) / median(off);
    return {
      workers: n,
      offMs: median(off),
      onMs: median(on),
      offSpread,
      runs,
      steps,
      megabytes,
      reads,
    };
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}
