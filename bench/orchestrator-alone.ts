import { join } from 'node:path';
import type { Execution, ExecutionRequest } from '../src/executors/executor.js';
import { composeRun } from '../src/runtime/compose-run.js';
import { openScope } from '../src/scope/scope.js';
import { ScopeSet } from '../src/scope/scope-set.js';
import { freshState } from '../test/helpers/fake-actors.js';
import { plainSettings, runProject } from '../test/helpers/run-world.js';

/*
 * The orchestrator alone (`node --import tsx bench/orchestrator-alone.ts N`):
 * one dispatcher forking N one-step script workers, every script answered at
 * once in this process, so what is measured is Raymond's own work per step
 * (machines, state file and journal, scheduling), none of the process
 * creation that dominates a real run on a slow machine. Warm-up fan-outs
 * come first, so the measured ones (the median of three) give the cost per
 * step, and the start's fixed cost is printed apart. Prints one JSON line:
 * steps, wall and CPU time, the start's CPU, peak RSS, state file bytes.
 */

const workers = Number(process.argv[2] ?? 1000);
/**
 * Warm-up fan-outs of 1,000 before the measured one: a run's first few
 * thousand steps load its lazy modules and run code V8 has not optimized yet
 * (measured: the fifth fan-out of 1,000 costs about half the first).
 */
const WARM_UPS = 5;
const WARM_UP = 1000;

/** One fan-out of `n` workers in a fresh directory: its figures. */
async function fanOut(n: number) {
  const script = '#!/bin/sh\n';
  const project = runProject({ 'START.sh': script, 'W1.sh': script, 'END.sh': script });
  const { dir, wf } = project;
  const forks = '<fork next="END">W1</fork>'.repeat(n);
  const answer = (req: ExecutionRequest): Execution => ({
    output:
      req.file === 'START.sh'
        ? forks
        : `<result>${req.file === 'END.sh' ? 'dispatched' : req.agent.id}</result>`,
    session: null,
    costUsd: 0,
  });
  const state = freshState('START.sh', { cwd: dir });
  state.workflow_id = 'alone';
  state.scope = { kind: 'dir', path: wf, entry: 'START.sh' };
  const scope = await openScope(wf);
  const scopes = new ScopeSet(scope);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const outcome = await composeRun({
    state,
    scopes,
    stateFile: join(project.stateDir, 'alone.json'),
    settings: plainSettings(),
    hooks: {
      onEvent: () => {},
      language: 'inline',
      // Each script "runs" on the next turn of the event loop, as a spawner's reply would arrive.
      script: () => ({
        execute: (req) => new Promise((resolve) => setImmediate(() => resolve(answer(req)))),
      }),
    },
    resumed: false,
  });
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await scopes.dispose();
  project.remove();
  return {
    status: outcome.status,
    results: Object.keys(outcome.results).length,
    steps: n + 2,
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    stateBytes: outcome.stateWrites.bytes,
  };
}

// The start is a fixed cost per run, kept apart from the cost per step: what the warm-ups
// cost beyond as many steps at the measured fan-out's rate.
let warmUpCpuMs = 0;
let warmUpSteps = 0;
for (let i = 0; i < WARM_UPS; i++) {
  const run = await fanOut(WARM_UP);
  warmUpCpuMs += run.cpuMs;
  warmUpSteps += run.steps;
}
// Three measured fan-outs, the median by CPU: a short one (1,000) catches the collector's and
// the compiler's background threads at any point of their work.
const rounds = [await fanOut(workers), await fanOut(workers), await fanOut(workers)];
const measured = rounds.sort((a, b) => a.cpuMs - b.cpuMs)[1]!;
process.stdout.write(
  `${JSON.stringify({
    workers,
    ...measured,
    startCpuMs: warmUpCpuMs - (warmUpSteps * measured.cpuMs) / measured.steps,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  })}\n`,
);
